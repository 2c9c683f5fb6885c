import { beforeAll, describe, expect, it } from 'vitest';
import { referenceLine } from '../../src/core/ports/triggers.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { RunningService } from '../../src/main.js';
import { messageKey } from '../../src/slack/normalise.js';
import type { FakeSlackApi } from '../fakes/slack-api.js';
import { postSlackEvent, postSlackRaw } from '../fakes/slack-signing.js';
import {
  appMention,
  botMessage,
  channelJoin,
  channelMessage,
  directMessage,
  eventCallback,
  messageChanged,
  ownBotMessage,
  threadReply,
} from '../fixtures/slack/events.js';
import { evilBodies } from '../fixtures/slack/evil.js';
import { SLACK_IDS, nextTs } from '../fixtures/slack/ids.js';
import { blockActionsCancel, malformedSlashCommands, unknownInteraction } from '../fixtures/slack/interactions.js';
import { callText, SLACK_SECRET, type SlackBridge, useSlackBridge } from '../helpers/slack-bridge.js';

/*
 * Slack end to end: the real Bolt on the running server receives correctly signed requests, the
 * fake Slack Web API records every call, the emulator plays the run API.
 */

const CHANNEL = SLACK_IDS.channel;
const OTHER_CHANNEL = 'C0CHANNEL02';
const ADMIN = 'U0ADMIN001';
let bridge: SlackBridge;
let slack: FakeSlackApi, emulator: RunningEmulator, service: RunningService, events: string;

const world = useSlackBridge({
  channels: { [CHANNEL]: 'dev' },
  users: { [SLACK_IDS.user]: { display_name: 'ada' } },
  yaml: `tracker:\n  interval: 1s\nslack:\n  channels:\n    ${CHANNEL}: { config: { environment_id: env_web, name: web } }\nconsole:\n  admins: [${ADMIN}]\n`,
  resetEach: true,
});
beforeAll(() => {
  bridge = world.bridge;
  ({ slack, emulator, service, events } = bridge);
});

const until: SlackBridge['until'] = (find, what, timeoutMs) => bridge.until(find, what, timeoutMs);
const triggerCount = () => bridge.triggerCount();
const runFor = (ts: string) => bridge.runFor(CHANNEL, ts);
const threadPosts = (threadTs: string) => bridge.threadPosts(threadTs);
const updatesOf = (ts: string) => bridge.updatesOf(ts);
const text = callText;

async function mention(fields: Parameters<typeof appMention>[0] = {}) {
  const event = appMention({ channel: CHANNEL, ...fields });
  return { response: await bridge.post(event), ts: event['ts'] as string };
}

describe('a mention starts a run and the thread tells the story', () => {
  it('eyes and the status message, the run with prompt, context and route, every state, the end with links', async () => {
    const { response, ts } = await mention({ text: `<@${SLACK_IDS.botUser}> Fix the flaky login test\nIt fails on CI about once a day.` });
    expect(response.status).toBe(200);

    const run = await until(() => runFor(ts), 'the run');
    expect(run.title).toBe('Fix the flaky login test');
    expect(run.agent_config).toMatchObject({ environment_id: 'env_web', name: 'web' });
    expect(run.prompt).toContain('Fix the flaky login test\nIt fails on CI about once a day.');
    expect(run.prompt).toContain('Channel: #dev');
    expect(run.prompt).toContain('Requested by: ada');

    const eyes = await until(() => slack.callsTo('reactions.add').find((call) => call.args['timestamp'] === ts), 'the eyes reaction');
    expect(eyes.args['name']).toBe('eyes');
    const status = await until(() => threadPosts(ts)[0], 'the status message');
    const statusTs = (status.response as unknown as { ts: string }).ts;
    expect(text(status)).toContain('cancel_run');

    emulator.engine.drive(run.run_id, 'INPROGRESS');
    await until(() => updatesOf(statusTs).some((call) => text(call).includes(run.run_id) && /in progress/i.test(text(call))), 'the INPROGRESS edit');
    emulator.engine.drive(run.run_id, 'SUCCEEDED', {
      artifacts: [{ artifact_type: 'PULL_REQUEST', data: { url: 'https://github.com/acme/web/pull/7', branch: 'fix' } }],
    });
    const done = await until(() => threadPosts(ts).find((call) => text(call).includes('https://github.com/acme/web/pull/7')), 'the end message');
    expect(text(done)).toContain('/sessions/');
    await until(() => slack.reactions(CHANNEL, ts).includes('white_check_mark'), 'the end reaction');
    expect(slack.reactions(CHANNEL, ts)).not.toContain('eyes');
    expect(threadPosts(ts)).toHaveLength(2);
  });

  it('a reply becomes a follow-up; after the end it revives the run and the thread shows it again', async () => {
    const { ts } = await mention();
    const run = await until(() => runFor(ts), 'the run');
    emulator.engine.drive(run.run_id, 'SUCCEEDED');
    await until(() => slack.reactions(CHANNEL, ts).includes('white_check_mark'), 'the first end');

    const reply = threadReply({ channel: CHANNEL, thread_ts: ts, text: 'also bump the version' });
    expect((await bridge.post(reply)).status).toBe(200);
    await until(() => emulator.engine.followups(run.run_id).length === 1, 'the follow-up');
    expect(emulator.engine.followups(run.run_id)[0]?.message).toBe('also bump the version');
    await until(() => slack.reactions(CHANNEL, reply['ts'] as string).includes('incoming_envelope'), 'the envelope reaction');

    emulator.engine.drive(run.run_id, 'SUCCEEDED');
    await until(() => threadPosts(ts).length === 3, 'the second end message');
  });

  it('order, not time: eyes and the status message come before the run API answers the create', async () => {
    await fetch(`${emulator.url}/_emulator/faults`, { method: 'POST', body: JSON.stringify({ count: 1, delay_ms: 3000, match: 'POST /agent/run' }) });
    const before = slack.calls.length;
    const { ts } = await mention();
    await until(() => threadPosts(ts)[0], 'the status message');
    expect(runFor(ts)).toBeUndefined();
    await until(() => runFor(ts), 'the delayed run', 15_000);
    // Reads for the prompt's context may interleave; what people see comes first.
    const ours = (call: { args: Record<string, unknown> }) => call.args['timestamp'] === ts || call.args['thread_ts'] === ts;
    const writes = slack.calls.slice(before).filter((call) => ['reactions.add', 'chat.postMessage', 'chat.update'].includes(call.method) && ours(call));
    expect(writes.slice(0, 2).map((call) => call.method)).toEqual(['reactions.add', 'chat.postMessage']);
  });
});

describe('Slack text: decoded once on the way in, escaped once on the way out (issue 16)', () => {
  it('`a < b & c` typed in Slack reaches the agent as typed and comes back as `a &lt; b &amp; c` on the wire', async () => {
    // Slack sends what was typed as `a < b & c` escaped once.
    const { ts } = await mention({ text: `<@${SLACK_IDS.botUser}> a &lt; b &amp; c` });
    const run = await until(() => runFor(ts), 'the run');
    expect(run.prompt?.split('\n')[0]).toBe('a < b & c');
    expect(run.title).toBe('a < b & c');
    const status = await until(() => threadPosts(ts)[0], 'the status message');
    expect(text(status)).toContain('*a &lt; b &amp; c*');
    expect(text(status)).not.toContain('&amp;lt;');

    const reply = threadReply({ channel: CHANNEL, thread_ts: ts, text: 'only if x &gt; 2 &amp;&amp; y &lt; 3' });
    expect((await bridge.post(reply)).status).toBe(200);
    await until(() => emulator.engine.followups(run.run_id).length === 1, 'the follow-up');
    expect(emulator.engine.followups(run.run_id)[0]?.message).toBe('only if x > 2 && y < 3');
  });

  it('an `/agent` prompt is decoded the same way', async () => {
    const response = await bridge.command({ channel_id: CHANNEL, text: 'compare &lt;b&gt; &amp; &lt;i&gt; tags' });
    expect(response.status).toBe(200);
    const run = await until(() => emulator.engine.list({}).runs.find((candidate) => candidate.prompt?.startsWith('compare ')), 'the run');
    expect(run.prompt?.split('\n')[0]).toBe('compare <b> & <i> tags');
  });
});

describe('signed but malformed /agent forms (issue 16)', () => {
  it.each(malformedSlashCommands().map((entry) => [entry.name, entry] as const))(
    '%s: a private answer naming the field, nothing stored',
    async (_name, entry) => {
      const before = await triggerCount();
      const response = await postSlackRaw(events, SLACK_SECRET, entry.body, 'application/x-www-form-urlencoded');
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ response_type: 'ephemeral', text: expect.stringContaining(`\`${entry.field}\``) });
      expect(await triggerCount()).toBe(before);
    },
  );

  it('two commands without a trigger_id are both refused, not stored under one key and the second dropped', async () => {
    const entry = malformedSlashCommands().find((candidate) => candidate.name === 'no trigger_id')!;
    for (let round = 0; round < 2; round++) {
      const response = await postSlackRaw(events, SLACK_SECRET, entry.body, 'application/x-www-form-urlencoded');
      expect(((await response.json()) as { text: string }).text).toContain('Nothing was started');
    }
    expect(await service.store.triggers.getByKey('slack:cmd:undefined')).toBeUndefined();
  });
});

describe('honest failures', () => {
  it('capacity full: the thread is told once, and the run starts when there is room', async () => {
    await fetch(`${emulator.url}/_emulator/faults`, {
      method: 'POST',
      body: JSON.stringify({ count: 6, status: 429, retry_after: 1, match: 'POST /agent/run' }),
    });
    const { ts } = await mention();
    await until(() => runFor(ts), 'the run after the capacity errors', 20_000);
    const notices = threadPosts(ts).filter((call) => text(call).includes('at capacity'));
    expect(notices).toHaveLength(1);
  }, 30_000);
});

describe('never twice, never ourselves', () => {
  it('a retried event (same message, retry headers) starts one run, also across a restart', async () => {
    const event = appMention({ channel: CHANNEL });
    const envelope = eventCallback(event);
    await postSlackEvent(events, SLACK_SECRET, envelope);
    await postSlackEvent(events, SLACK_SECRET, envelope, { retryNum: 1, retryReason: 'http_timeout' });
    await until(() => runFor(event['ts'] as string), 'the run');
    bridge = world.bridge = await bridge.restart();
    ({ service, events } = bridge);
    await postSlackEvent(events, SLACK_SECRET, envelope, { retryNum: 2, retryReason: 'http_timeout' });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const runs = emulator.engine.list({}).runs.filter((run) => run.prompt?.includes(referenceLine(messageKey(CHANNEL, event['ts'] as string))));
    expect(runs).toHaveLength(1);
    expect(slack.callsTo('reactions.add').filter((call) => call.args['timestamp'] === event['ts'] && call.args['name'] === 'eyes')).toHaveLength(1);
  });

  it.each([
    ['our own message', ownBotMessage({ channel: CHANNEL, text: `<@${SLACK_IDS.botUser}> do it` })],
    ['another bot', botMessage({ channel: CHANNEL, text: `<@${SLACK_IDS.botUser}> do it` })],
    ['an edit', messageChanged({ channel: CHANNEL })],
    ['a join', channelJoin({ channel: CHANNEL })],
    ['a plain channel message', channelMessage({ channel: CHANNEL, text: 'hi all' })],
  ])('%s starts nothing', async (_what, event) => {
    const before = { calls: slack.calls.length, triggers: await triggerCount() };
    expect((await bridge.post(event)).status).toBe(200);
    expect(await triggerCount()).toBe(before.triggers);
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Other tests' runs may still be reporting in their own threads; nothing may touch this message.
    const ts = event['ts'];
    expect(slack.calls.slice(before.calls).filter((call) => call.args['timestamp'] === ts || call.args['thread_ts'] === ts)).toEqual([]);
  });

  it.each([
    ['a wrong signature', { signature: 'v0=0000' }],
    ['a stale timestamp', { timestamp: Math.floor(Date.now() / 1000) - 600 }],
  ])('%s is 401 and changes nothing', async (_what, options) => {
    const before = await triggerCount();
    const response = await bridge.post(appMention({ channel: CHANNEL }), options);
    expect(response.status).toBe(401);
    expect(await triggerCount()).toBe(before);
  });
});

describe('DMs, stopping and interactions', () => {
  it('a direct message starts a run', async () => {
    const event = directMessage({ text: 'write the release notes' });
    await bridge.post(event);
    await until(() => emulator.engine.list({}).runs.find((run) => run.prompt?.startsWith('write the release notes')), 'the DM run');
  });

  it('the Cancel button stops the thread’s run and the thread says who', async () => {
    const { ts } = await mention();
    const run = await until(() => runFor(ts), 'the run');
    emulator.engine.drive(run.run_id, 'INPROGRESS');
    const click = blockActionsCancel({ user: SLACK_IDS.otherUser, channel: CHANNEL, message_ts: nextTs(), thread_ts: ts, value: `slack:${CHANNEL}:${ts}` });
    expect((await bridge.interact(click)).status).toBe(200);
    await until(() => emulator.engine.get(run.run_id)?.state === 'CANCELLED', 'the cancel');
    await until(() => threadPosts(ts).some((call) => text(call).includes(`<@${SLACK_IDS.otherUser}>`) && /cancel/i.test(text(call))), 'the cancelled message');
    await until(() => slack.reactions(CHANNEL, ts).includes('x'), 'the x reaction');
    // The stop was shown by editing the status message; the only new message is the CANCELLED one.
    const statusTs = (threadPosts(ts)[0]?.response as unknown as { ts: string }).ts;
    expect(updatesOf(statusTs).some((call) => /stopping/i.test(text(call)) && text(call).includes(`<@${SLACK_IDS.otherUser}>`))).toBe(true);
    expect(threadPosts(ts)).toHaveLength(2);
  });

  it('`@agent stop` in the thread stops its run', async () => {
    const { ts } = await mention();
    const run = await until(() => runFor(ts), 'the run');
    emulator.engine.drive(run.run_id, 'INPROGRESS');
    await mention({ thread_ts: ts, text: `<@${SLACK_IDS.botUser}> STOP` });
    await until(() => emulator.engine.get(run.run_id)?.state === 'CANCELLED', 'the cancel');
  });

  it('/agent help, status and cancel answer privately; a prompt is pointed to mentions', async () => {
    const answer = async (text: string) => {
      const response = await bridge.command({ channel_id: CHANNEL, text });
      expect(response.status).toBe(200);
      return (await response.json()) as { response_type: string; text: string };
    };
    expect(await answer('')).toMatchObject({ response_type: 'ephemeral', text: expect.stringContaining('/agent status') });
    const { ts } = await mention();
    const run = await until(() => runFor(ts), 'the run');
    await until(async () => (await answer('status')).text.includes(run.run_id), 'the run in /agent status');
    emulator.engine.drive(run.run_id, 'INPROGRESS');
    expect((await answer(`cancel ${run.run_id}`)).text).toContain(`Stopping \`${run.run_id}\``);
    await until(() => emulator.engine.get(run.run_id)?.state === 'CANCELLED', 'the cancel');
    expect((await answer('cancel run_unknown')).text).toContain('I do not know a run');
  });

  it('/agent cancel <run-id>: from elsewhere by someone else is refused privately; the starter and an admin may', async () => {
    const answer = async (fields: Record<string, string>) => {
      const response = await bridge.command(fields);
      expect(response.status).toBe(200);
      return (await response.json()) as { response_type: string; text: string };
    };
    const first = await mention();
    const run = await until(() => runFor(first.ts), 'the run');
    emulator.engine.drive(run.run_id, 'INPROGRESS');
    const triggers = await triggerCount();
    const refused = await answer({ channel_id: OTHER_CHANNEL, user_id: SLACK_IDS.otherUser, text: `cancel ${run.run_id}` });
    expect(refused.response_type).toBe('ephemeral');
    expect(refused.text).toContain(`<#${CHANNEL}>`);
    expect(refused.text).toContain('console.admins');
    expect(await triggerCount()).toBe(triggers);
    expect(emulator.engine.get(run.run_id)?.state).toBe('INPROGRESS');
    expect((await answer({ channel_id: OTHER_CHANNEL, user_id: ADMIN, text: `cancel ${run.run_id}` })).text).toContain(`Stopping \`${run.run_id}\``);
    await until(() => emulator.engine.get(run.run_id)?.state === 'CANCELLED', 'the admin’s cancel');

    const second = await mention();
    const other = await until(() => runFor(second.ts), 'the second run');
    emulator.engine.drive(other.run_id, 'INPROGRESS');
    expect((await answer({ channel_id: OTHER_CHANNEL, user_id: SLACK_IDS.user, text: `cancel ${other.run_id}` })).text).toContain('Stopping');
    await until(() => emulator.engine.get(other.run_id)?.state === 'CANCELLED', 'the starter’s cancel');
  });

  it('/agent <prompt> posts the status at the channel; its thread is linked to the run', async () => {
    const response = await bridge.command({ channel_id: CHANNEL, text: 'write the changelog\nfor 2.0' });
    expect(((await response.json()) as { text: string }).text).toContain('On it');
    const run = await until(() => emulator.engine.list({}).runs.find((candidate) => candidate.prompt?.startsWith('write the changelog')), 'the run');
    expect(run.title).toBe('write the changelog');
    const topLevel = await until(
      () =>
        slack
          .callsTo('chat.postMessage')
          .find((call) => call.args['channel'] === CHANNEL && call.args['thread_ts'] === undefined && text(call).includes('write the changelog')),
      'the top-level status message',
    );
    const threadTs = (topLevel.response as unknown as { ts: string }).ts;
    const reply = threadReply({ channel: CHANNEL, thread_ts: threadTs, text: 'mention the breaking change' });
    await bridge.post(reply);
    await until(() => emulator.engine.followups(run.run_id).length === 1, 'the follow-up through the linked thread');
    emulator.engine.drive(run.run_id, 'SUCCEEDED');
    await until(() => threadPosts(threadTs).some((call) => /done|succeeded/i.test(text(call))), 'the end message in the thread');
  });

  it('an interaction we do not handle is acknowledged at once', async () => {
    const response = await bridge.interact(unknownInteraction('shortcut'));
    expect(response.status).toBe(200);
  });

  // Bolt's view listeners match submissions only unless told otherwise; a closed modal was
  // left unanswered and got a 404 after 3 s.
  it('a closed modal (view_closed) is acknowledged with a 200', async () => {
    const response = await bridge.interact(unknownInteraction('view_closed'));
    expect(response.status).toBe(200);
  });
});

describe('hostile bodies', () => {
  it.each(evilBodies().map((body) => [body.name, body] as const))('%s: no 5xx; stores nothing unless it is a valid request', async (_name, body) => {
    const before = await triggerCount();
    const response = await postSlackRaw(events, SLACK_SECRET, body.body, body.contentType);
    expect(response.status).toBeLessThan(500);
    expect(body.statuses).toContain(response.status);
    if (body.expect === 'reject') expect(response.status).toBeGreaterThanOrEqual(400);
    // Our body limit is 1 MiB for every route (stricter than Bolt's 4 MiB).
    if (body.expect === 'too_large' || body.name === 'text-2mb') expect(response.status).toBe(413);
    if (body.expect !== 'handle' || response.status !== 200) expect(await triggerCount()).toBe(before);
  });
});
