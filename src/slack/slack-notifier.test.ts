import { LogLevel, WebClient } from '@slack/web-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSlackApi, type FakeSlackApi, type SlackCall } from '../../test/fakes/slack-api.js';
import { noticeOf } from '../core/outbox/notice-parts.js';
import { receivedKey, type OutboxMessage, type RunSnapshot } from '../core/ports/messages.js';
import { NotifierError, type Delivery } from '../core/ports/notifier.js';
import { parseSlackDestination, SlackNotifier, type ThreadStarted } from './slack-notifier.js';

const TOKEN = 'xoxb-77-88-TOPSECRET';
const C = 'C0CHANNEL01';
let fake: FakeSlackApi;
let client: WebClient;
let notifier: SlackNotifier;
/** Results of delivered rows by key, as the outbox would keep them. */
let results: Map<string, unknown>;
let parent: { ts: string };
let dest: string;
const RECEIVED = 'received:Ev1:dest';

const newClient = (options: { timeout?: number } = {}): WebClient =>
  new WebClient(TOKEN, { slackApiUrl: fake.url, retryConfig: { retries: 0 }, rejectRateLimitedCalls: true, logLevel: LogLevel.ERROR, ...options });

beforeAll(async () => {
  fake = await startFakeSlackApi({ token: TOKEN });
  client = newClient();
  notifier = new SlackNotifier({ client });
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.reset();
  results = new Map();
  parent = fake.addUserMessage({ channel: C, user: 'U1', text: '<@UBOT> fix the build' });
  dest = `slack:${C}:${parent.ts}`;
});

/** Delivers like the outbox: records the result under the key. */
async function deliver(message: OutboxMessage, key: string, attempt = 0, via: SlackNotifier = notifier): Promise<unknown> {
  const delivery: Delivery = { key, destination: dest, message, attempt, resultOf: async (k) => results.get(k) };
  const result = await via.deliver(delivery);
  results.set(key, result);
  return result;
}
const receive = (title = 'Fix the build') =>
  deliver({ kind: 'received', title, reference: { channel: C, ts: parent.ts } }, RECEIVED) as Promise<{ channel: string; ts: string }>;
const run = (over: Partial<RunSnapshot> = {}): RunSnapshot => ({ runId: 'run_1', title: 'Fix the build', state: 'INPROGRESS', pullRequests: [], ...over });
const status = (r: RunSnapshot, n: number) => deliver({ kind: 'status', run: r, receivedKey: RECEIVED }, `run:run_1:${n}:${dest}:status`);
const announce = (r: RunSnapshot, n: number, cancelledBy?: string) =>
  deliver({ kind: 'announce', run: r, receivedKey: RECEIVED, ...(cancelledBy ? { cancelledBy } : {}) }, `run:run_1:${n}:${dest}:announce`);

const thread = () => fake.messages(C, parent.ts).slice(1);
const actionIds = (call: SlackCall | undefined): unknown[] =>
  ((call?.args['blocks'] as Array<{ type: string; elements?: Array<{ action_id: string }> }>) ?? []).flatMap((b) => b.elements?.map((e) => e.action_id) ?? []);
const blocksText = (call: SlackCall | undefined): string => JSON.stringify(call?.args['blocks']);
async function failure(promise: Promise<unknown>): Promise<NotifierError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(NotifierError);
  return error as NotifierError;
}

describe('SlackNotifier', () => {
  it('refuses a message of a kind it does not know (a row of a newer version): not retryable, and Slack is not called', async () => {
    const strange = { kind: `from-the-future-${'x'.repeat(60)}` } as unknown as OutboxMessage;
    const refused = await deliver(strange, 'strange').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(NotifierError);
    expect(refused).toMatchObject({ code: 'unknown_kind', retryable: false, message: `unknown message kind from-the-future-${'x'.repeat(24)}` });
    expect(fake.calls).toEqual([]);
  });

  it('parses destinations', () => {
    expect(parseSlackDestination('slack:C1:1700000000.000100')).toEqual({ channel: 'C1', threadTs: '1700000000.000100' });
    expect(parseSlackDestination('slack:C1')).toEqual({ channel: 'C1' });
    expect(() => parseSlackDestination('linear:ENG-1')).toThrow(NotifierError);
    expect(notifier.platform).toBe('slack');
  });

  it('received: 👀 on the request and a status message in the thread with the key and Cancel', async () => {
    const result = await receive();
    expect(fake.reactions(C, parent.ts)).toEqual(['eyes']);
    const [message] = thread();
    expect(thread()).toHaveLength(1);
    expect(result).toEqual({ channel: C, ts: message?.ts, reference: { channel: C, ts: parent.ts } });
    expect(message).toMatchObject({ thread_ts: parent.ts, metadata: { event_type: 'agent_bridge', event_payload: { key: RECEIVED } } });
    expect(message?.text).toContain('Received: Fix the build');
    const post = fake.callsTo('chat.postMessage')[0];
    expect(blocksText(post)).toContain('Received');
    expect((post?.args['blocks'] as unknown[]).flatMap((b) => (b as { elements?: unknown[] }).elements ?? [])).toContainEqual(
      expect.objectContaining({ action_id: 'cancel_run', value: dest }),
    );
    expect(fake.callsTo('conversations.replies')).toEqual([]); // a first attempt posts directly
  });

  it('status: edits the same message at every state; Open session appears, Cancel goes at the end', async () => {
    const { ts } = await receive();
    await status(run({ state: 'QUEUED' }), 1);
    await status(run({ state: 'INPROGRESS', sessionLink: 'https://app.example.com/s/1', statusText: 'Running tests' }), 2);
    await status(run({ state: 'WARMING_UP' }), 3);
    await status(run({ state: 'SUCCEEDED', sessionLink: 'https://app.example.com/s/1' }), 4);
    const updates = fake.callsTo('chat.update');
    expect(updates.map((u) => u.args['ts'])).toEqual([ts, ts, ts, ts]);
    expect(thread()).toHaveLength(1);
    expect(blocksText(updates[0])).toContain('Queued');
    expect(blocksText(updates[0])).toContain('`run_1`');
    expect(actionIds(updates[0])).toEqual(['cancel_run']);
    expect(actionIds(updates[1])).toEqual(['open_session', 'cancel_run']);
    expect(blocksText(updates[1])).toContain('https://app.example.com/s/1');
    expect(blocksText(updates[1])).toContain('Running tests');
    expect(blocksText(updates[2])).toContain('WARMING_UP');
    expect(actionIds(updates[3])).toEqual(['open_session']);
    expect(thread()[0]?.text).toBe('Fix the build: SUCCEEDED\nSession: https://app.example.com/s/1');
  });

  it('announce SUCCEEDED: a new message with session and pull requests; 👀 becomes ✅', async () => {
    await receive();
    const result = await announce(
      run({ state: 'SUCCEEDED', sessionLink: 'https://app/s/1', pullRequests: ['https://gh/o/r/pull/1', 'https://gh/o/r/pull/2'] }),
      2,
    );
    const posted = thread()[1];
    expect(result).toEqual({ channel: C, ts: posted?.ts });
    expect(posted?.metadata?.event_payload).toEqual({ key: `run:run_1:2:${dest}:announce` });
    const text = blocksText(fake.callsTo('chat.postMessage')[1]);
    expect(text).toContain('Done');
    for (const url of ['https://app/s/1', 'https://gh/o/r/pull/1', 'https://gh/o/r/pull/2']) expect(text).toContain(`<${url}|`);
    expect(fake.reactions(C, parent.ts)).toEqual(['white_check_mark']);
  });

  it('announce FAILED: status text and what to try; 👀 becomes ❌', async () => {
    await receive();
    await announce(run({ state: 'FAILED', statusText: 'Tests failed', sessionLink: 'https://app/s/1' }), 2);
    const text = blocksText(fake.callsTo('chat.postMessage')[1]);
    expect(text).toContain('Tests failed');
    expect(text).toContain('reply in this thread to continue the run, or open the session');
    expect(fake.reactions(C, parent.ts)).toEqual(['x']);
  });

  it('stopping: the status message says who asked and loses Cancel; nothing new is posted', async () => {
    const { ts } = await receive();
    await status(run(), 1);
    await deliver({ kind: 'stopping', run: run(), receivedKey: RECEIVED, requestedBy: '<@U42>' }, `stopping:Ev2:${dest}`);
    const edit = fake.callsTo('chat.update').at(-1);
    expect(edit?.args['ts']).toBe(ts);
    expect(blocksText(edit)).toContain('Stopping (requested by <@U42>)');
    expect(actionIds(edit)).toEqual([]);
    expect(edit?.args['text']).toBe('Fix the build: stopping (requested by <@U42>)…');
    expect(thread()).toHaveLength(1);
  });

  it('announce CANCELLED says who; ❌', async () => {
    await receive();
    await announce(run({ state: 'CANCELLED' }), 2, '<@U42>');
    expect(blocksText(fake.callsTo('chat.postMessage')[1])).toContain('Cancelled by <@U42>');
    expect(thread()[1]?.text).toBe('Cancelled by <@U42>');
    expect(fake.reactions(C, parent.ts)).toEqual(['x']);
  });

  it('announce BLOCKED asks for a reply and leaves 👀', async () => {
    await receive();
    await announce(run({ state: 'BLOCKED', statusText: 'Which branch?' }), 2);
    const text = blocksText(fake.callsTo('chat.postMessage')[1]);
    expect(text).toContain('Which branch?');
    expect(text).toContain('Reply in this thread to answer.');
    expect(fake.reactions(C, parent.ts)).toEqual(['eyes']);
    expect(fake.callsTo('reactions.remove')).toEqual([]);
  });

  it('a retried post that reached Slack before a timeout is not posted again', async () => {
    const slow = new SlackNotifier({ client: newClient({ timeout: 100 }) });
    fake.failNext('chat.postMessage', { delayMs: 400 });
    const message: OutboxMessage = { kind: 'received', title: 'Fix the build', reference: { channel: C, ts: parent.ts } };
    const timedOut = await failure(deliver(message, RECEIVED, 0, slow));
    expect(timedOut).toMatchObject({ code: 'request_error', retryable: true });
    expect(thread()).toHaveLength(1); // Slack did post it

    const result = (await deliver(message, RECEIVED, 1)) as { ts: string };
    expect(result.ts).toBe(thread()[0]?.ts);
    expect(thread()).toHaveLength(1);
    expect(fake.callsTo('chat.postMessage')).toHaveLength(1);
    expect(fake.callsTo('conversations.replies')[0]?.args).toMatchObject({ channel: C, ts: parent.ts, include_all_metadata: 'true' });
  });

  it('a retry that finds nothing posts once; a redelivered announcement is found by its key', async () => {
    await receive();
    await announce(run({ state: 'BLOCKED', statusText: '?' }), 2);
    await deliver({ kind: 'announce', run: run({ state: 'BLOCKED', statusText: '?' }), receivedKey: RECEIVED }, `run:run_1:2:${dest}:announce`, 3);
    await deliver({ kind: 'notice', text: 'hello' }, 'notice:x', 1);
    expect(thread().map((m) => m.text)).toEqual([expect.stringContaining('Received'), expect.stringContaining('needs your input'), 'hello']);
  });

  it('text is escaped exactly once on the way out, private notices too (issue 16)', async () => {
    await receive('a < b & c');
    expect(blocksText(fake.callsTo('chat.postMessage')[0])).toContain('*a &lt; b &amp; c*');
    expect(thread()[0]?.text).toContain('a &lt; b &amp; c');
    await deliver({ kind: 'notice', text: 'Sorry <@U1>, only a < b & c may', privateTo: 'U1' }, 'notice:private');
    expect(fake.callsTo('chat.postEphemeral')[0]?.args['text']).toBe('Sorry <@U1>, only a &lt; b &amp; c may');
  });

  it('a notice’s links are posted as links, in the blocks and the text; the words stay words', async () => {
    await receive();
    const url = 'https://github.com/Codertocat/Hello-World/pull/2';
    await deliver(
      noticeOf(['The pull request ', { url, label: 'Codertocat/Hello-World#2' }, ' was merged by <https://evil.example|octocat>.']),
      'notice:merged',
    );
    const posted = fake.callsTo('chat.postMessage').at(-1);
    const shown = `The pull request <${url}|Codertocat/Hello-World#2> was merged by &lt;https://evil.example|octocat&gt;.`;
    expect(blocksText(posted)).toContain(JSON.stringify(shown).slice(1, -1));
    expect(posted?.args['text']).toBe(shown);
  });

  it('finds an earlier post on a later page of a long thread', async () => {
    await receive();
    for (let i = 0; i < 250; i++) fake.addUserMessage({ channel: C, user: 'U2', text: `chat ${i}`, thread_ts: parent.ts });
    await announce(run({ state: 'SUCCEEDED' }), 2);
    const before = fake.callsTo('chat.postMessage').length;
    await deliver({ kind: 'announce', run: run({ state: 'SUCCEEDED' }), receivedKey: RECEIVED }, `run:run_1:2:${dest}:announce`, 1);
    expect(fake.callsTo('chat.postMessage')).toHaveLength(before);
    expect(fake.callsTo('conversations.replies').length).toBeGreaterThanOrEqual(2);
  });

  it('status without a delivered received row posts one replacement status message, then edits it', async () => {
    const first = (await status(run({ state: 'QUEUED' }), 1)) as { ts: string };
    const second = (await status(run({ state: 'INPROGRESS' }), 2)) as { ts: string };
    expect(second.ts).toBe(first.ts);
    expect(thread()).toHaveLength(1);
    expect(thread()[0]?.metadata?.event_payload).toMatchObject({ status_of: RECEIVED });
    expect(fake.callsTo('chat.update').map((u) => u.args['ts'])).toEqual([first.ts]);
  });

  it('failed: a new message, the status message marked "Failed to start" without Cancel, 👀 becomes ❌', async () => {
    const { ts } = await receive();
    await deliver({ kind: 'failed', title: 'Fix the build', reason: 'the run API refused the request', receivedKey: RECEIVED }, 'failed:Ev1');
    expect(thread()[1]?.text).toBe('Could not start Fix the build: the run API refused the request');
    const update = fake.callsTo('chat.update')[0];
    expect(update?.args['ts']).toBe(ts);
    expect(blocksText(update)).toContain('Failed to start');
    expect(actionIds(update)).toEqual([]);
    expect(fake.reactions(C, parent.ts)).toEqual(['x']);
  });

  it('a bare channel destination posts the status message top-level and threads the rest under it', async () => {
    dest = `slack:${C}`;
    const { ts } = (await deliver({ kind: 'received', title: 'Nightly' }, RECEIVED)) as { ts: string };
    await announce(run({ state: 'SUCCEEDED' }), 2);
    await deliver({ kind: 'announce', run: run({ state: 'SUCCEEDED' }), receivedKey: RECEIVED }, `run:run_1:2:${dest}:announce`, 1);
    expect(fake.messages(C, ts).map((m) => m.thread_ts)).toEqual([ts, ts]);
    expect(fake.callsTo('chat.postMessage')).toHaveLength(2);
  });

  it('a status message that starts a thread names it and its trigger, at a bare channel and at a person (a Home tab start)', async () => {
    const started: ThreadStarted[] = [];
    const via = new SlackNotifier({ client, onThreadStarted: async (thread) => void started.push(thread) });
    for (const place of [`slack:${C}`, 'slack:U0HUMAN001']) {
      dest = place;
      await deliver({ kind: 'received', title: 'Nightly' }, receivedKey('Ev7', place), 0, via);
    }
    // In a thread already: nothing started.
    dest = `slack:${C}:${parent.ts}`;
    await deliver({ kind: 'received', title: 'Fix' }, receivedKey('Ev8', dest), 0, via);
    const [atChannel, atPerson] = fake.callsTo('chat.postMessage').map((call) => `${String(call.response?.['channel'])}:${String(call.response?.['ts'])}`);
    expect(started).toEqual([
      { thread: `slack:${atChannel}`, triggerKey: 'Ev7' },
      { thread: `slack:${atPerson}`, triggerKey: 'Ev7' },
    ]);
    expect(atPerson).toMatch(/^U0HUMAN001:/);
  });

  it('followup_accepted: ✉️ on the reply, idempotently', async () => {
    const reply = fake.addUserMessage({ channel: C, user: 'U1', text: 'also fix lint', thread_ts: parent.ts });
    const message: OutboxMessage = { kind: 'followup_accepted', runId: 'run_1', reference: { channel: C, ts: reply.ts } };
    await deliver(message, 'followup:1');
    await deliver(message, 'followup:1', 1);
    expect(fake.reactions(C, reply.ts)).toEqual(['incoming_envelope']);
    expect(await deliver({ kind: 'followup_accepted', runId: 'run_1' }, 'followup:2')).toEqual({ reacted: false });
  });

  it('a reaction on a deleted request does not hold back the status message', async () => {
    fake.failNext('reactions.add', { error: 'message_not_found' });
    await receive();
    expect(thread()).toHaveLength(1);
  });

  it('escapes a title that tries to mention or link, in blocks and fallback text', async () => {
    await receive('hi <@U999> <https://evil|click>');
    const post = fake.callsTo('chat.postMessage')[0];
    expect(blocksText(post)).toContain('*hi &lt;@U999&gt; &lt;https://evil|click&gt;*');
    expect(blocksText(post)).not.toContain('<@U999>');
    expect(post?.args['text']).toBe('Received: hi &lt;@U999&gt; &lt;https://evil|click&gt; — starting a run…');
  });

  it('maps Slack failures to NotifierErrors without the token', async () => {
    fake.failNext('chat.postMessage', { status: 429, retryAfter: 3 });
    const limited = await failure(receive());
    expect(limited).toMatchObject({ code: 'rate_limited', retryable: true, retryAfterMs: 3000 });
    fake.failNext('chat.postMessage', { error: 'channel_not_found' });
    const missing = await failure(receive());
    expect(missing).toMatchObject({ code: 'channel_not_found', retryable: false });
    fake.failNext('chat.postMessage', { status: 500 });
    const down = await failure(receive());
    expect(down).toMatchObject({ code: 'http_500', retryable: true });
    fake.failNext('reactions.add', { status: 429, retryAfter: 1 });
    const reaction = await failure(receive());
    expect(reaction).toMatchObject({ code: 'rate_limited', retryAfterMs: 1000 });
    for (const error of [limited, missing, down, reaction]) expect(`${error.message} ${String(error.stack)}`).not.toContain('TOPSECRET');
  });
});
