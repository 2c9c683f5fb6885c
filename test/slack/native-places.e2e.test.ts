import { beforeAll, describe, expect, it } from 'vitest';
import { referenceLine } from '../../src/core/ports/triggers.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { RunningService } from '../../src/main.js';
import { homeDestination } from '../../src/slack/home-view.js';
import { sendToAgentKey } from '../../src/slack/shortcut.js';
import type { FakeSlackApi, SlackCall } from '../fakes/slack-api.js';
import { postSlackEvent, postSlackInteraction } from '../fakes/slack-signing.js';
import { appMention, directMessage, eventCallback } from '../fixtures/slack/events.js';
import { SLACK_IDS, nextTs } from '../fixtures/slack/ids.js';
import { homeStartClick, sendToAgentShortcut, startRunSubmission } from '../fixtures/slack/interactions.js';
import { SLACK_SECRET, type SlackBridge, useSlackBridge } from '../helpers/slack-bridge.js';

/*
 * Slack's own places for the agent, end to end: the real Bolt on the running service
 * receives correctly signed requests, the fake Slack Web API records every call, the emulator plays
 * the run API. `slack.allowed_users` lists SLACK_IDS.user only: SLACK_IDS.otherUser is refused.
 */

const CHANNEL = SLACK_IDS.channel;
const ALLOWED = SLACK_IDS.user;
const REFUSED = SLACK_IDS.otherUser;
let bridge: SlackBridge;
let slack: FakeSlackApi, emulator: RunningEmulator, service: RunningService, events: string;

const world = useSlackBridge({
  channels: { [CHANNEL]: 'dev' },
  users: { [ALLOWED]: { display_name: 'ada' }, [REFUSED]: { display_name: 'grace' } },
  yaml: `tracker:\n  interval: 1s\nslack:\n  allowed_users: [${ALLOWED}]\n  unfurl_domains: [127.0.0.1]\n  channels:\n    ${CHANNEL}: { config: { environment_id: env_web, name: web } }\n`,
  resetEach: true,
});
beforeAll(() => {
  bridge = world.bridge;
  ({ slack, emulator, service, events } = bridge);
});

const until: SlackBridge['until'] = (find, what, timeoutMs) => bridge.until(find, what, timeoutMs);
const triggerCount = () => bridge.triggerCount();
const runsWith = (key: string) => emulator.engine.list({}).runs.filter((run) => run.prompt?.includes(referenceLine(key)));
const threadPosts = (threadTs: string) => bridge.threadPosts(threadTs);

describe('the message shortcut "Send to agent" (send_to_agent)', () => {
  it('starts one run on that message, in its thread, with the thread as context; a re-sent payload starts nothing', async () => {
    const parent = slack.addUserMessage({ channel: CHANNEL, user: REFUSED, text: 'Login is broken since this morning' });
    const reply = slack.addUserMessage({
      channel: CHANNEL,
      user: REFUSED,
      thread_ts: parent.ts,
      text: 'The login page 500s when the password has a &amp; in it',
    });
    const payload = sendToAgentShortcut({ user: ALLOWED, ts: reply.ts, thread_ts: parent.ts, text: reply.text, author: REFUSED });

    expect((await postSlackInteraction(events, SLACK_SECRET, payload)).status).toBe(200);
    const key = sendToAgentKey(CHANNEL, reply.ts);
    const run = await until(() => runsWith(key)[0], 'the run');
    expect(run.title).toBe('The login page 500s when the password has a & in it');
    expect(run.prompt).toContain('> The login page 500s when the password has a & in it');
    expect(run.prompt).toContain('Earlier messages in the thread');
    expect(run.prompt).toContain('> Login is broken since this morning');
    expect(run.prompt).toContain('Requested by: ada');
    // Routed by the message's channel, as a mention there would be.
    expect(run.agent_config).toMatchObject({ environment_id: 'env_web', name: 'web' });

    // Reported in the message's thread, with 👀 on the message that was sent.
    const status = await until(() => threadPosts(parent.ts)[0], 'the status message in the thread');
    expect(status.args['channel']).toBe(CHANNEL);
    await until(() => slack.reactions(CHANNEL, reply.ts).includes('eyes'), 'the eyes reaction on the sent message');

    const triggers = await triggerCount();
    expect((await postSlackInteraction(events, SLACK_SECRET, payload)).status).toBe(200);
    expect(await triggerCount()).toBe(triggers);
    // Sent again by someone else: still that message's one request.
    expect((await postSlackInteraction(events, SLACK_SECRET, { ...payload, trigger_id: 'another.click' })).status).toBe(200);
    expect(await triggerCount()).toBe(triggers);
    emulator.engine.drive(run.run_id, 'SUCCEEDED');
    await until(() => slack.reactions(CHANNEL, reply.ts).includes('white_check_mark'), 'the end');
    expect(runsWith(key)).toHaveLength(1);
    expect(threadPosts(parent.ts)).toHaveLength(2);
  });

  it('someone not in allowed_users gets the same private answer as for a mention, and no run starts', async () => {
    const mention = appMention({ channel: CHANNEL, user: REFUSED, text: `<@${SLACK_IDS.botUser}> fix it` });
    await postSlackEvent(events, SLACK_SECRET, eventCallback(mention));
    const mentionAnswer = await slack.waitForCall('chat.postEphemeral', (call) => call.args['thread_ts'] === mention['ts']);

    const ts = nextTs();
    const payload = sendToAgentShortcut({ user: REFUSED, ts, text: 'please fix the login page' });
    expect((await postSlackInteraction(events, SLACK_SECRET, payload)).status).toBe(200);
    const shortcutAnswer = await slack.waitForCall('chat.postEphemeral', (call) => call.args['thread_ts'] === ts);
    expect(shortcutAnswer.args['user']).toBe(REFUSED);
    expect(shortcutAnswer.args['text']).toBe(mentionAnswer.args['text']);
    expect(String(shortcutAnswer.args['text'])).toContain('slack.allowed_users');
    expect(slack.calls.filter((call) => call.args['timestamp'] === ts || call.args['thread_ts'] === ts).map((call) => call.method)).toEqual([
      'chat.postEphemeral',
    ]);
    expect(runsWith(sendToAgentKey(CHANNEL, ts))).toEqual([]);
  });

  it('a message without text (only files) starts nothing and is acknowledged', async () => {
    const triggers = await triggerCount();
    const response = await postSlackInteraction(events, SLACK_SECRET, sendToAgentShortcut({ text: '' }));
    expect(response.status).toBe(200);
    expect(await triggerCount()).toBe(triggers);
  });
});

const homeOpened = (user: string) => eventCallback({ type: 'app_home_opened', user, channel: SLACK_IDS.dm, tab: 'home', event_ts: nextTs() });
const publishesFor = (user: string) => slack.callsTo('views.publish').filter((call) => call.args['user_id'] === user);
const viewText = (call: SlackCall) => JSON.stringify(call.args['view']);
/** The Home tab's line for one run in a published view (its section's block id names the run). */
const runLineOf = (call: SlackCall, runId: string) =>
  (call.args['view'] as { blocks: Array<{ block_id?: string; text?: { text: string } }> }).blocks.find((block) => block.block_id === `run_${runId}`)?.text
    ?.text;
/** Waits until every row owed to the person's Home tab is delivered, then counts its publishes. */
async function settledPublishes(user: string): Promise<number> {
  await until(async () => (await service.store.outbox.list({ destination: homeDestination(user) })).every((row) => row.state === 'sent'), 'the Home rows');
  return publishesFor(user).length;
}

describe('App Home', () => {
  it('opening the Home tab publishes the person’s runs and a Start a run button; opening it again the same day publishes nothing more', async () => {
    expect((await postSlackEvent(events, SLACK_SECRET, homeOpened(ALLOWED))).status).toBe(200);
    const published = await until(() => publishesFor(ALLOWED).find((call) => viewText(call).includes('home_start_run')), 'the Home tab');
    expect((published.args['view'] as { type: string }).type).toBe('home');
    const count = await settledPublishes(ALLOWED);
    expect((await postSlackEvent(events, SLACK_SECRET, homeOpened(ALLOWED))).status).toBe(200);
    expect(await settledPublishes(ALLOWED)).toBe(count);
  });

  it('is republished at every state change of a run the person asked for: title, state, where, session link', async () => {
    const mention = appMention({ channel: CHANNEL, user: ALLOWED, text: `<@${SLACK_IDS.botUser}> Tidy the home page copy` });
    await postSlackEvent(events, SLACK_SECRET, eventCallback(mention));
    const run = await until(() => emulator.engine.list({}).runs.find((candidate) => candidate.title === 'Tidy the home page copy'), 'the run');
    const lines = () => publishesFor(ALLOWED).flatMap((call) => runLineOf(call, run.run_id) ?? []);
    await until(() => lines().find((line) => line.includes('Queued')), 'the Home tab with the run');
    emulator.engine.drive(run.run_id, 'INPROGRESS');
    const working = await until(() => lines().find((line) => line.includes('In progress')), 'the Home tab republished with INPROGRESS');
    expect(working).toContain('*Tidy the home page copy*');
    expect(working).toContain(`asked in <#${CHANNEL}>`);
    emulator.engine.drive(run.run_id, 'SUCCEEDED');
    const done = await until(() => lines().find((line) => line.includes('Succeeded')), 'the Home tab republished with SUCCEEDED');
    expect(done).toMatch(/<http:\/\/[^|>]+\/sessions\/[^|>]+\|Open session>/);
    // Once per change: one publish per observed state (created, INPROGRESS, SUCCEEDED), none for the announcement.
    await settledPublishes(ALLOWED);
    expect(lines().map((line) => /Queued|In progress|Succeeded/.exec(line)?.[0])).toEqual(['Queued', 'In progress', 'Succeeded']);
  });

  it('someone not in allowed_users sees the same refusal as for a mention, and no button', async () => {
    await postSlackEvent(events, SLACK_SECRET, homeOpened(REFUSED));
    const published = await until(() => publishesFor(REFUSED)[0], 'the refused person’s Home tab');
    expect(viewText(published)).toContain('slack.allowed_users');
    expect(viewText(published)).not.toContain('home_start_run');
  });

  it('Start a run opens the modal with the request and the route; a submission starts a run on that route, reported in a direct message', async () => {
    expect((await postSlackInteraction(events, SLACK_SECRET, homeStartClick(ALLOWED))).status).toBe(200);
    const opened = await until(() => slack.callsTo('views.open')[0], 'the modal');
    const modal = JSON.stringify(opened.args['view']);
    expect(modal).toContain('"callback_id":"start_run"');
    expect(modal).toContain('"block_id":"request"');
    expect(modal).toContain(`"value":"${CHANNEL}"`);

    const empty = await postSlackInteraction(events, SLACK_SECRET, startRunSubmission({ user: ALLOWED, text: '  ', route: CHANNEL }));
    expect(await empty.json()).toEqual({ response_action: 'errors', errors: { request: 'Say what the agent should do.' } });
    const triggers = await triggerCount();
    const refused = await postSlackInteraction(events, SLACK_SECRET, startRunSubmission({ user: REFUSED, text: 'ship it', route: CHANNEL }));
    expect(JSON.stringify(await refused.json())).toContain('slack.allowed_users');
    expect(await triggerCount()).toBe(triggers);

    const submission = startRunSubmission({ user: ALLOWED, text: 'Write the release notes', route: CHANNEL });
    const response = await postSlackInteraction(events, SLACK_SECRET, submission);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('');
    const run = await until(() => emulator.engine.list({}).runs.find((candidate) => candidate.title === 'Write the release notes'), 'the run');
    expect(run.agent_config).toMatchObject({ environment_id: 'env_web', name: 'web' });
    await until(
      () => slack.callsTo('chat.postMessage').find((call) => call.args['channel'] === ALLOWED && JSON.stringify(call.args).includes('Write the release notes')),
      'the status message in the direct message',
    );
    expect((await postSlackInteraction(events, SLACK_SECRET, submission)).status).toBe(200);
    expect(await triggerCount()).toBe(triggers + 1);
  });

  it('a click whose modal cannot open is still acknowledged', async () => {
    slack.failNext('views.open', { error: 'expired_trigger_id' });
    const before = slack.callsTo('views.open').length;
    expect((await postSlackInteraction(events, SLACK_SECRET, homeStartClick(ALLOWED))).status).toBe(200);
    expect(slack.callsTo('views.open').length).toBe(before + 1);
  });
});

describe('link previews (link_shared → chat.unfurl)', () => {
  const linkShared = (user: string, links: Array<{ domain: string; url: string }>) =>
    eventCallback({
      type: 'link_shared',
      channel: CHANNEL,
      user,
      message_ts: nextTs(),
      unfurl_id: `Uf${nextTs()}`,
      source: 'conversations_history',
      links,
      event_ts: nextTs(),
    });

  it('a pasted session link of one of our runs unfurls to its title, state and where it was asked; a redelivery sends nothing more', async () => {
    const mention = appMention({ channel: CHANNEL, user: ALLOWED, text: `<@${SLACK_IDS.botUser}> Speed up the test suite` });
    await postSlackEvent(events, SLACK_SECRET, eventCallback(mention));
    const run = await until(() => emulator.engine.list({}).runs.find((candidate) => candidate.title === 'Speed up the test suite'), 'the run');
    emulator.engine.drive(run.run_id, 'INPROGRESS');
    const link = await until(async () => (await service.store.trackedRuns.get(run.run_id))?.sessionLink ?? undefined, 'the session link');
    const host = new URL(link).hostname;

    const body = linkShared(ALLOWED, [
      { domain: host, url: link },
      { domain: host, url: `http://${host}:1/sessions/not-ours` },
      { domain: 'example.com', url: 'https://example.com/elsewhere' },
    ]);
    expect((await postSlackEvent(events, SLACK_SECRET, body)).status).toBe(200);
    const unfurl = await until(() => slack.callsTo('chat.unfurl')[0], 'the unfurl');
    const unfurls = unfurl.args['unfurls'] as Record<string, { blocks: Array<{ text: { text: string } }> }>;
    expect(Object.keys(unfurls)).toEqual([link]);
    const preview = unfurls[link]?.blocks[0]?.text.text ?? '';
    expect(preview).toContain('*Speed up the test suite*');
    expect(preview).toContain('In progress');
    expect(preview).toContain(`asked in <#${CHANNEL}>`);
    expect(unfurl.args).toMatchObject({ unfurl_id: body.event['unfurl_id'], source: 'conversations_history' });

    expect((await postSlackEvent(events, SLACK_SECRET, body, { retryNum: 1, retryReason: 'http_timeout' })).status).toBe(200);
    await until(
      async () => (await service.store.outbox.list({ destination: `slack:unfurl:${CHANNEL}` })).every((row) => row.state === 'sent'),
      'the unfurl rows',
    );
    expect(slack.callsTo('chat.unfurl')).toHaveLength(1);
  });

  it('links off the listed domains, and links pasted by someone not in allowed_users, are not previewed', async () => {
    const rows = async () => (await service.store.outbox.list({ destination: `slack:unfurl:${CHANNEL}` })).length;
    const before = await rows();
    await postSlackEvent(events, SLACK_SECRET, linkShared(ALLOWED, [{ domain: 'example.com', url: 'https://example.com/sessions/1' }]));
    await postSlackEvent(events, SLACK_SECRET, linkShared(REFUSED, [{ domain: '127.0.0.1', url: 'http://127.0.0.1/sessions/1' }]));
    expect(await rows()).toBe(before);
  });
});

describe('the assistant panel', () => {
  const DM = SLACK_IDS.dm;
  const threadStarted = (user: string, threadTs: string) =>
    eventCallback({
      type: 'assistant_thread_started',
      assistant_thread: { user_id: user, channel_id: DM, thread_ts: threadTs, context: { channel_id: CHANNEL, team_id: SLACK_IDS.team, enterprise_id: null } },
      event_ts: nextTs(),
    });
  const statusesOf = (threadTs: string) =>
    slack
      .callsTo('assistant.threads.setStatus')
      .filter((call) => call.args['thread_ts'] === threadTs)
      .map((call) => call.args['status']);

  it('suggests prompts on open; a message starts a run in the thread, the panel shows a status while it works, cleared at the end', async () => {
    const threadTs = nextTs();
    expect((await postSlackEvent(events, SLACK_SECRET, threadStarted(ALLOWED, threadTs))).status).toBe(200);
    const prompts = await until(
      () => slack.callsTo('assistant.threads.setSuggestedPrompts').find((call) => call.args['thread_ts'] === threadTs),
      'the prompts',
    );
    expect(prompts.args['channel_id']).toBe(DM);
    expect((prompts.args['prompts'] as unknown[]).length).toBeGreaterThan(0);

    const message = directMessage({ user: ALLOWED, thread_ts: threadTs, text: 'Make the CI cache work again' });
    expect((await postSlackEvent(events, SLACK_SECRET, eventCallback(message))).status).toBe(200);
    const run = await until(() => emulator.engine.list({}).runs.find((candidate) => candidate.title === 'Make the CI cache work again'), 'the run');
    // The thread shows the run as a mention's thread does: the status message in it.
    await until(
      () => slack.callsTo('chat.postMessage').find((call) => call.args['channel'] === DM && call.args['thread_ts'] === threadTs),
      'the status message',
    );
    await until(() => statusesOf(threadTs).includes('is working on it…'), 'the working status');
    emulator.engine.drive(run.run_id, 'INPROGRESS');
    emulator.engine.drive(run.run_id, 'SUCCEEDED');
    await until(() => statusesOf(threadTs).at(-1) === '', 'the status cleared');
    await until(
      async () => (await service.store.outbox.list({ destination: `slack:assistant:${DM}:${threadTs}` })).every((row) => row.state === 'sent'),
      'the panel rows',
    );
    expect(statusesOf(threadTs).at(-1)).toBe('');
    expect(
      statusesOf(threadTs)
        .slice(0, -1)
        .every((status) => status === 'is working on it…'),
    ).toBe(true);
  });

  it('someone not in allowed_users gets no prompts, and the same private answer as for a mention', async () => {
    const threadTs = nextTs();
    await postSlackEvent(events, SLACK_SECRET, threadStarted(REFUSED, threadTs));
    const message = directMessage({ user: REFUSED, thread_ts: threadTs, text: 'deploy it' });
    await postSlackEvent(events, SLACK_SECRET, eventCallback(message));
    const answer = await slack.waitForCall('chat.postEphemeral', (call) => call.args['thread_ts'] === threadTs);
    expect(answer.args['user']).toBe(REFUSED);
    expect(String(answer.args['text'])).toContain('slack.allowed_users');
    const mention = appMention({ channel: CHANNEL, user: REFUSED, text: `<@${SLACK_IDS.botUser}> deploy it` });
    await postSlackEvent(events, SLACK_SECRET, eventCallback(mention));
    const mentionAnswer = await slack.waitForCall('chat.postEphemeral', (call) => call.args['thread_ts'] === mention['ts']);
    expect(answer.args['text']).toBe(mentionAnswer.args['text']);
    expect(slack.callsTo('assistant.threads.setSuggestedPrompts').filter((call) => call.args['thread_ts'] === threadTs)).toEqual([]);
    expect(statusesOf(threadTs)).toEqual([]);
  });

  // Slack says which channel the person is looking at (`context.channel_id`) when the thread opens and
  // each time they look elsewhere (assistant_thread_context_changed): the panel's requests route as it.
  const assistantEvent = (type: string, threadTs: string, viewed: string) =>
    eventCallback({
      type,
      assistant_thread: {
        user_id: ALLOWED,
        channel_id: DM,
        thread_ts: threadTs,
        context: { channel_id: viewed, team_id: SLACK_IDS.team, enterprise_id: null },
      },
      event_ts: nextTs(),
    });
  const askInPanel = async (threadTs: string, request: string) => {
    await postSlackEvent(events, SLACK_SECRET, eventCallback(directMessage({ user: ALLOWED, thread_ts: threadTs, text: request })));
    return until(() => emulator.engine.list({}).runs.find((candidate) => candidate.title === request), 'the run');
  };

  it('a request routes as the route of the channel the person is looking at, followed as they look elsewhere', async () => {
    const opened = nextTs();
    expect((await postSlackEvent(events, SLACK_SECRET, assistantEvent('assistant_thread_started', opened, CHANNEL))).status).toBe(200);
    expect((await askInPanel(opened, 'Fix the header layout')).agent_config).toMatchObject({ environment_id: 'env_web', name: 'web' });

    const moved = nextTs();
    await postSlackEvent(events, SLACK_SECRET, assistantEvent('assistant_thread_started', moved, 'C0NOROUTE1'));
    expect((await postSlackEvent(events, SLACK_SECRET, assistantEvent('assistant_thread_context_changed', moved, CHANNEL))).status).toBe(200);
    const run = await askInPanel(moved, 'Fix the footer layout');
    expect(run.agent_config).toMatchObject({ environment_id: 'env_web', name: 'web' });
    // Reported in the panel's thread all the same.
    await until(() => slack.callsTo('chat.postMessage').find((call) => call.args['channel'] === DM && call.args['thread_ts'] === moved), 'the status message');
  });

  it('a channel without a route of its own leaves the direct-message route, as before', async () => {
    const threadTs = nextTs();
    await postSlackEvent(events, SLACK_SECRET, assistantEvent('assistant_thread_started', threadTs, CHANNEL));
    expect((await postSlackEvent(events, SLACK_SECRET, assistantEvent('assistant_thread_context_changed', threadTs, 'C0NOROUTE1'))).status).toBe(200);
    const run = await askInPanel(threadTs, 'Tidy the changelog');
    expect(run.agent_config).toMatchObject({ name: 'slack' });
    expect(run.agent_config).not.toHaveProperty('environment_id');
  });

  it('a plain direct-message thread (not an assistant thread) gets no panel status', async () => {
    const threadTs = nextTs();
    await postSlackEvent(events, SLACK_SECRET, eventCallback(directMessage({ user: ALLOWED, thread_ts: threadTs, text: 'Rename the build job' })));
    await until(() => emulator.engine.list({}).runs.find((candidate) => candidate.title === 'Rename the build job'), 'the run');
    await until(
      async () => (await service.store.outbox.list({ destination: `slack:assistant:${DM}:${threadTs}` })).some((row) => row.state === 'sent'),
      'the panel row',
    );
    expect(statusesOf(threadTs)).toEqual([]);
  });
});
