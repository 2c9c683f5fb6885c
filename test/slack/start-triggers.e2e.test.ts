import { beforeAll, describe, expect, it } from 'vitest';
import { referenceLine } from '../../src/core/ports/triggers.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { RunningService } from '../../src/main.js';
import { messageKey } from '../../src/slack/normalise.js';
import type { FakeSlackApi } from '../fakes/slack-api.js';
import { postSlackEvent } from '../fakes/slack-signing.js';
import { appMention, channelMessage, eventCallback, reactionAdded } from '../fixtures/slack/events.js';
import { SLACK_IDS } from '../fixtures/slack/ids.js';
import { SLACK_SECRET, useSlackBridge, type SlackBridge } from '../helpers/slack-bridge.js';

/*
 * Starting a run without a mention, end to end: the real Bolt on the running
 * service receives correctly signed events, the fake Slack Web API records every call and holds the
 * messages a reaction points at, the emulator plays the run API. CHANNEL's route has a trigger
 * (keyword `agent:`, emoji robot_face); QUIET's route has none. `slack.allowed_users` lists ALLOWED only.
 */

const CHANNEL = SLACK_IDS.channel;
const QUIET = 'C0QUIET001';
const ALLOWED = SLACK_IDS.user;
const REFUSED = SLACK_IDS.otherUser;
let bridge: SlackBridge;
let slack: FakeSlackApi, emulator: RunningEmulator, service: RunningService;

const world = useSlackBridge({
  channels: { [CHANNEL]: 'dev' },
  users: { [ALLOWED]: { display_name: 'ada' }, [REFUSED]: { display_name: 'grace' } },
  yaml: [
    'tracker:',
    '  interval: 1s',
    'slack:',
    `  allowed_users: [${ALLOWED}]`,
    '  channels:',
    `    ${CHANNEL}: { config: { environment_id: env_web, name: web }, trigger: { keywords: ["agent:"], emoji: ":robot_face:" } }`,
    `    ${QUIET}: { config: { name: quiet } }`,
    '',
  ].join('\n'),
  resetEach: true,
});
beforeAll(() => {
  bridge = world.bridge;
  ({ slack, emulator, service } = bridge);
});

const until: SlackBridge['until'] = (find, what, timeoutMs) => bridge.until(find, what, timeoutMs);
const triggerCount = () => bridge.triggerCount();
const runsWith = (key: string) => emulator.engine.list({}).runs.filter((run) => run.prompt?.includes(referenceLine(key)));
const threadPosts = (threadTs: string) => bridge.threadPosts(threadTs);
const send = async (event: Record<string, unknown>) => expect((await bridge.post(event as never)).status).toBe(200);
/** Waits until the trigger is worked (so "no run" is checked after the work, not before it). */
const worked = (key: string) =>
  until(async () => ['done', 'failed', 'ignored'].includes((await service.store.triggers.getByKey(key))?.state ?? ''), `${key} worked`);

describe('a keyword at the start of a top-level message', () => {
  it('starts one run on the message without its keyword, routed by the channel; a re-sent event starts nothing', async () => {
    const message = channelMessage({ user: ALLOWED, text: 'Agent: fix the login page &amp; its test' });
    const envelope = eventCallback(message);
    expect((await postSlackEvent(bridge.events, SLACK_SECRET, envelope)).status).toBe(200);
    const key = messageKey(CHANNEL, message['ts'] as string);
    const run = await until(() => runsWith(key)[0], 'the run');
    expect(run.prompt).toMatch(/^fix the login page & its test\n/);
    expect(run.prompt).not.toContain('Agent:');
    expect(run.title).toBe('fix the login page & its test');
    expect(run.agent_config).toMatchObject({ environment_id: 'env_web', name: 'web' });
    // The status message first, in the message's own thread, and 👀 on the message.
    await until(() => threadPosts(message['ts'] as string)[0], 'the status message in the thread');
    await until(() => slack.reactions(CHANNEL, message['ts'] as string).includes('eyes'), 'the eyes reaction');

    const triggers = await triggerCount();
    expect((await postSlackEvent(bridge.events, SLACK_SECRET, envelope)).status).toBe(200);
    await send(message);
    expect(await triggerCount()).toBe(triggers);
    emulator.engine.drive(run.run_id, 'SUCCEEDED');
    await until(() => slack.reactions(CHANNEL, message['ts'] as string).includes('white_check_mark'), 'the end');
    expect(runsWith(key)).toHaveLength(1);
    // Announced once: the status message and the end.
    expect(threadPosts(message['ts'] as string)).toHaveLength(2);
  });

  it('starts nothing in a reply (a plain reply, as ever), without the keyword, or in a channel whose route has no trigger', async () => {
    const parent = channelMessage({ user: ALLOWED, text: 'hello team' });
    const reply = channelMessage({ user: ALLOWED, text: 'agent: also this', thread_ts: parent['ts'] as string });
    const elsewhere = channelMessage({ user: ALLOWED, text: 'please agent: fix it' });
    const quiet = channelMessage({ user: ALLOWED, channel: QUIET, text: 'agent: fix it' });
    for (const message of [parent, reply, elsewhere, quiet]) await send(message);
    const stored = async (message: Record<string, unknown>) =>
      (await service.store.triggers.getByKey(messageKey(message['channel'] as string, message['ts'] as string)))?.kind;
    // With followups: all a reply is a follow-up for its thread's run (this thread has none): never a start.
    expect(await stored(reply)).toBe('followup');
    expect(await Promise.all([parent, elsewhere, quiet].map(stored))).toEqual([undefined, undefined, undefined]);
  });

  it('someone not in allowed_users gets the same private answer as for a mention, and no run starts', async () => {
    const mention = appMention({ user: REFUSED, text: `<@${SLACK_IDS.botUser}> fix it` });
    await send(mention);
    const mentionAnswer = await slack.waitForCall('chat.postEphemeral', (call) => call.args['thread_ts'] === mention['ts']);
    const message = channelMessage({ user: REFUSED, text: 'agent: fix it' });
    await send(message);
    const keywordAnswer = await slack.waitForCall('chat.postEphemeral', (call) => call.args['thread_ts'] === message['ts']);
    expect(keywordAnswer.args['user']).toBe(REFUSED);
    expect(keywordAnswer.args['text']).toBe(mentionAnswer.args['text']);
    await worked(messageKey(CHANNEL, message['ts'] as string));
    expect(runsWith(messageKey(CHANNEL, message['ts'] as string))).toEqual([]);
  });
});

describe('the trigger emoji added to a message', () => {
  it('starts one run on that message, read by the worker, in its thread; a second reaction and a re-sent event start nothing', async () => {
    const message = slack.addUserMessage({ channel: CHANNEL, user: REFUSED, text: 'The checkout page 500s when the cart is empty' });
    const reaction = eventCallback(reactionAdded({ user: ALLOWED, ts: message.ts, item_user: REFUSED }));
    expect((await postSlackEvent(bridge.events, SLACK_SECRET, reaction)).status).toBe(200);
    const key = messageKey(CHANNEL, message.ts);
    const run = await until(() => runsWith(key)[0], 'the run');
    expect(run.title).toBe('The checkout page 500s when the cart is empty');
    expect(run.prompt).toContain(`Do what this Slack message (by <@${REFUSED}>) asks:\n> The checkout page 500s when the cart is empty`);
    // The person who reacted asked for it.
    expect(run.prompt).toContain('Requested by: ada');
    expect(run.agent_config).toMatchObject({ environment_id: 'env_web', name: 'web' });
    expect(slack.callsTo('conversations.history').some((call) => call.args['latest'] === message.ts && call.args['oldest'] === message.ts)).toBe(true);
    const status = await until(() => threadPosts(message.ts)[0], 'the status message in the thread');
    expect(status.args['channel']).toBe(CHANNEL);

    const triggers = await triggerCount();
    expect((await postSlackEvent(bridge.events, SLACK_SECRET, reaction)).status).toBe(200);
    await send(reactionAdded({ user: ALLOWED, ts: message.ts, item_user: REFUSED }));
    // A second person reacting — even one allowed_users leaves out — is the same message's one request.
    await send(reactionAdded({ user: REFUSED, ts: message.ts, item_user: REFUSED }));
    expect(await triggerCount()).toBe(triggers);
    expect(slack.callsTo('chat.postEphemeral').filter((call) => call.args['thread_ts'] === message.ts)).toEqual([]);
    emulator.engine.drive(run.run_id, 'SUCCEEDED');
    await until(() => slack.reactions(CHANNEL, message.ts).includes('white_check_mark'), 'the end');
    expect(runsWith(key)).toHaveLength(1);
    expect(threadPosts(message.ts)).toHaveLength(2);
  });

  it('on a message that was already a mention’s request starts nothing more', async () => {
    const mention = appMention({ user: ALLOWED, text: `<@${SLACK_IDS.botUser}> update the changelog` });
    await send(mention);
    const key = messageKey(CHANNEL, mention['ts'] as string);
    await until(() => runsWith(key)[0], 'the mention’s run');
    const triggers = await triggerCount();
    await send(reactionAdded({ user: ALLOWED, ts: mention['ts'] as string, item_user: ALLOWED }));
    expect(await triggerCount()).toBe(triggers);
    expect(runsWith(key)).toHaveLength(1);
  });

  it('someone not in allowed_users gets the same private answer as for a mention, and no run starts', async () => {
    const mention = appMention({ user: REFUSED, text: `<@${SLACK_IDS.botUser}> fix it too` });
    await send(mention);
    const mentionAnswer = await slack.waitForCall('chat.postEphemeral', (call) => call.args['thread_ts'] === mention['ts']);
    const message = slack.addUserMessage({ channel: CHANNEL, user: ALLOWED, text: 'Rename the billing module' });
    await send(reactionAdded({ user: REFUSED, ts: message.ts, item_user: ALLOWED }));
    const answer = await slack.waitForCall('chat.postEphemeral', (call) => call.args['thread_ts'] === message.ts);
    expect(answer.args['user']).toBe(REFUSED);
    expect(answer.args['text']).toBe(mentionAnswer.args['text']);
    await worked(messageKey(CHANNEL, message.ts));
    expect(runsWith(messageKey(CHANNEL, message.ts))).toEqual([]);
    // Nothing was read for a request that was refused.
    expect(slack.callsTo('conversations.history').some((call) => call.args['latest'] === message.ts)).toBe(false);
  });

  it('on a reply in a thread says why and starts nothing; other emoji, the bot’s own messages and quiet channels start nothing', async () => {
    const parent = slack.addUserMessage({ channel: CHANNEL, user: ALLOWED, text: 'Deploys are slow' });
    const reply = slack.addUserMessage({ channel: CHANNEL, user: ALLOWED, text: 'Cache the docker layers', thread_ts: parent.ts });
    await send(reactionAdded({ user: ALLOWED, ts: reply.ts, item_user: ALLOWED }));
    const failed = await until(
      () => slack.calls.find((call) => /^chat\.(update|postMessage)$/.test(call.method) && JSON.stringify(call.args).includes('top of the channel')),
      'the reason on the status message',
    );
    expect(JSON.stringify(failed.args)).toContain('mention me instead');
    expect(runsWith(messageKey(CHANNEL, reply.ts))).toEqual([]);

    const triggers = await triggerCount();
    const other = slack.addUserMessage({ channel: CHANNEL, user: ALLOWED, text: 'Bump the node version' });
    await send(reactionAdded({ user: ALLOWED, ts: other.ts, reaction: 'thumbsup' }));
    await send(reactionAdded({ user: ALLOWED, ts: other.ts, item_user: SLACK_IDS.botUser }));
    await send(reactionAdded({ user: SLACK_IDS.botUser, ts: other.ts }));
    await send(reactionAdded({ user: ALLOWED, channel: QUIET, ts: other.ts }));
    expect(await triggerCount()).toBe(triggers);
  });
});
