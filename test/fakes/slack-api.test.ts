import { createHmac } from 'node:crypto';
import { ErrorCode, LogLevel, WebClient, type WebAPIPlatformError, type WebAPIRateLimitedError } from '@slack/web-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSlackApi, type FakeSlackApi } from './slack-api.js';
import { signSlack } from './slack-signing.js';

let fake: FakeSlackApi;
let client: WebClient;
const C = 'C0CHANNEL01';

beforeAll(async () => {
  fake = await startFakeSlackApi({ token: 'xoxb-test' });
  client = new WebClient('xoxb-test', { slackApiUrl: fake.url, retryConfig: { retries: 0 }, rejectRateLimitedCalls: true, logLevel: LogLevel.ERROR });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

/** Runs `call` and returns what it threw. */
async function rejection<T extends Error>(call: Promise<unknown>): Promise<T> {
  try {
    await call;
  } catch (error) {
    return error as T;
  }
  throw new Error('expected the call to fail');
}

describe('fake Slack Web API through the real WebClient', () => {
  it('answers auth.test with the bot ids and records the bearer token', async () => {
    const result = await client.auth.test();
    expect(result).toMatchObject({ ok: true, user_id: 'UBOT', bot_id: 'BBOT', team_id: 'T0FAKETEAM' });
    expect(fake.calls[0]).toMatchObject({ seq: 1, method: 'auth.test', token: 'xoxb-test', status: 200 });
  });

  it('rejects another token with invalid_auth', async () => {
    const other = new WebClient('xoxb-wrong', { slackApiUrl: fake.url, retryConfig: { retries: 0 } });
    const error = await rejection<WebAPIPlatformError>(other.auth.test());
    expect(error.code).toBe(ErrorCode.PlatformError);
    expect(error.data.error).toBe('invalid_auth');
  });

  it('posts messages with blocks and metadata that round-trip through conversations.replies', async () => {
    const parent = fake.addUserMessage({ channel: C, user: 'U1', text: '<@UBOT> fix the build' });
    const blocks = [
      { type: 'section', text: { type: 'mrkdwn', text: '*fix the build*' } },
      { type: 'actions', elements: [{ type: 'button', action_id: 'cancel_run', text: { type: 'plain_text', text: 'Cancel' }, value: 'k' }] },
    ];
    const metadata = { event_type: 'agent_bridge_outbox', event_payload: { key: 'received:Ev1' } };
    const posted = await client.chat.postMessage({ channel: C, thread_ts: parent.ts, text: 'Received', blocks, metadata });
    expect(posted).toMatchObject({ ok: true, channel: C, message: { text: 'Received', bot_id: 'BBOT', user: 'UBOT', thread_ts: parent.ts } });
    expect(posted.ts).toMatch(/^\d{10}\.\d{6}$/);
    expect(posted.ts! > parent.ts).toBe(true);
    expect(fake.callsTo('chat.postMessage')[0]?.args).toMatchObject({ blocks, metadata, thread_ts: parent.ts });

    const plain = await client.conversations.replies({ channel: C, ts: parent.ts });
    expect(plain.messages?.map((m) => m.ts)).toEqual([parent.ts, posted.ts]);
    expect(plain.messages?.[1]?.metadata).toBeUndefined();
    expect(plain.messages?.[0]).toMatchObject({ reply_count: 1, thread_ts: parent.ts });

    const withMeta = await client.conversations.replies({ channel: C, ts: parent.ts, include_all_metadata: true });
    expect(withMeta.messages?.[1]).toMatchObject({ metadata, blocks });
    expect(fake.messages(C, parent.ts)).toHaveLength(2);
  });

  it('pages conversations.replies with limit and cursor', async () => {
    const parent = fake.addUserMessage({ channel: C, user: 'U1', text: 'start' });
    for (let i = 0; i < 4; i++) fake.addUserMessage({ channel: C, user: 'U2', text: `reply ${i}`, thread_ts: parent.ts });
    const first = await client.conversations.replies({ channel: C, ts: parent.ts, limit: 3 });
    expect(first).toMatchObject({ has_more: true });
    const second = await client.conversations.replies({ channel: C, ts: parent.ts, limit: 3, cursor: first.response_metadata?.next_cursor });
    expect(second.has_more).toBe(false);
    expect([...first.messages!, ...second.messages!].map((m) => m.text)).toEqual(['start', 'reply 0', 'reply 1', 'reply 2', 'reply 3']);
    const missing = await rejection<WebAPIPlatformError>(client.conversations.replies({ channel: C, ts: '1.000001' }));
    expect(missing.data.error).toBe('thread_not_found');
  });

  it('updates a message in place and reports message_not_found for an unknown ts', async () => {
    const posted = await client.chat.postMessage({ channel: C, text: 'Received' });
    const updated = await client.chat.update({ channel: C, ts: posted.ts!, text: 'In progress', blocks: [{ type: 'divider' }] });
    expect(updated).toMatchObject({ ok: true, channel: C, ts: posted.ts, text: 'In progress' });
    expect(fake.messages(C)).toMatchObject([{ ts: posted.ts, text: 'In progress', blocks: [{ type: 'divider' }], edited: { user: 'UBOT' } }]);
    const error = await rejection<WebAPIPlatformError>(client.chat.update({ channel: C, ts: '1700000999.000001', text: 'x' }));
    expect(error.data.error).toBe('message_not_found');
  });

  it('answers no_text and invalid_metadata_format like Slack', async () => {
    expect((await rejection<WebAPIPlatformError>(client.chat.postMessage({ channel: C, text: '' }))).data.error).toBe('no_text');
    const bad = client.apiCall('chat.postMessage', { channel: C, text: 'x', metadata: { event_type: 1 } });
    expect((await rejection<WebAPIPlatformError>(bad)).data.error).toBe('invalid_metadata_format');
  });

  it('adds and removes reactions with already_reacted / no_reaction errors', async () => {
    const msg = fake.addUserMessage({ channel: C, user: 'U1', text: 'hi' });
    await client.reactions.add({ channel: C, timestamp: msg.ts, name: 'eyes' });
    expect(fake.reactions(C, msg.ts)).toEqual(['eyes']);
    const again = await rejection<WebAPIPlatformError>(client.reactions.add({ channel: C, timestamp: msg.ts, name: 'eyes' }));
    expect(again.data.error).toBe('already_reacted');
    await client.reactions.add({ channel: C, timestamp: msg.ts, name: 'white_check_mark' });
    await client.reactions.remove({ channel: C, timestamp: msg.ts, name: 'eyes' });
    expect(fake.reactions(C, msg.ts)).toEqual(['white_check_mark']);
    const absent = await rejection<WebAPIPlatformError>(client.reactions.remove({ channel: C, timestamp: msg.ts, name: 'x' }));
    expect(absent.data.error).toBe('no_reaction');
    const history = await client.conversations.history({ channel: C });
    expect(history.messages?.[0]?.reactions).toEqual([{ name: 'white_check_mark', users: ['UBOT'], count: 1 }]);
  });

  it('answers users.info, conversations.info, getPermalink, postEphemeral and apps.connections.open', async () => {
    fake.setUser('U1', { real_name: 'Ada Lovelace', display_name: 'ada' });
    fake.setChannel(C, { name: 'dev' });
    expect(await client.users.info({ user: 'U1' })).toMatchObject({
      user: { id: 'U1', real_name: 'Ada Lovelace', is_bot: false, profile: { display_name: 'ada', real_name: 'Ada Lovelace' } },
    });
    expect(await client.conversations.info({ channel: C })).toMatchObject({ channel: { id: C, name: 'dev', is_im: false } });
    expect(await client.conversations.info({ channel: 'D0DM' })).toMatchObject({ channel: { is_im: true } });
    const link = await client.chat.getPermalink({ channel: C, message_ts: '1700000000.000100' });
    expect(link.permalink).toBe(`https://fake-team.slack.com/archives/${C}/p1700000000000100`);
    const eph = await client.chat.postEphemeral({ channel: C, user: 'U1', text: 'only you' });
    expect(eph.message_ts).toBeDefined();
    expect(fake.ephemerals(C)).toMatchObject([{ user: 'U1', text: 'only you' }]);
    expect(fake.messages(C)).toEqual([]);
    expect(await client.apps.connections.open({ token: 'xoxb-test' })).toMatchObject({ ok: true, url: 'ws://127.0.0.1:1/' });
  });

  it('answers unknown methods with unknown_method', async () => {
    const error = await rejection<WebAPIPlatformError>(client.apiCall('no.such.method'));
    expect(error.code).toBe(ErrorCode.PlatformError);
    expect(error.data.error).toBe('unknown_method');
  });

  it('surfaces an injected 429 as the rate-limited error with retryAfter, then recovers', async () => {
    fake.failNext('chat.postMessage', { status: 429, retryAfter: 7 });
    const error = await rejection<WebAPIRateLimitedError>(client.chat.postMessage({ channel: C, text: 'x' }));
    expect(error.code).toBe('slack_webapi_rate_limited_error');
    expect(error.retryAfter).toBe(7);
    expect(fake.messages(C)).toEqual([]);
    await client.chat.postMessage({ channel: C, text: 'x' });
    expect(fake.callsTo('chat.postMessage').map((c) => c.status)).toEqual([429, 200]);
  });

  it('injects ok:false errors, 500s (count) and delays', async () => {
    fake.failNext('reactions.add', { error: 'channel_not_found' });
    const platform = await rejection<WebAPIPlatformError>(client.reactions.add({ channel: C, timestamp: '1.1', name: 'eyes' }));
    expect(platform.code).toBe(ErrorCode.PlatformError);
    expect(platform.data.error).toBe('channel_not_found');

    fake.failNext('auth.test', { status: 500, count: 2 });
    for (let i = 0; i < 2; i++) expect((await rejection<Error & { code: string }>(client.auth.test())).code).toBe(ErrorCode.HTTPError);
    expect((await client.auth.test()).ok).toBe(true);

    fake.failNext('chat.postMessage', { delayMs: 150 });
    const started = Date.now();
    await client.chat.postMessage({ channel: C, text: 'slow' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('holds an answer until the given promise settles; the call is recorded at once', async () => {
    let release = () => {};
    fake.failNext('views.publish', { until: new Promise<void>((resolve) => (release = resolve)) });
    let answered = false;
    const publish = client.views.publish({ user_id: 'U1', view: { type: 'home', blocks: [] } }).then(() => (answered = true));
    await fake.waitForCall('views.publish');
    // A whole round trip later, the held call is still unanswered.
    await client.auth.test();
    expect(answered).toBe(false);
    release();
    await publish;
    expect(answered).toBe(true);
  });

  it('waitForCall resolves for past and future calls and times out with a clear message', async () => {
    await client.auth.test();
    expect((await fake.waitForCall('auth.test')).seq).toBe(1);
    const pending = fake.waitForCall('chat.postMessage', (c) => c.args['text'] === 'second');
    await client.chat.postMessage({ channel: C, text: 'first' });
    await client.chat.postMessage({ channel: C, text: 'second' });
    expect((await pending).seq).toBe(3);
    await expect(fake.waitForCall('chat.update', undefined, 50)).rejects.toThrow(/no matching chat.update call/);
  });

  it('accepts JSON bodies and token form fields', async () => {
    const json = await fetch(`${fake.url}chat.postMessage`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', authorization: 'Bearer xoxb-test' },
      body: JSON.stringify({ channel: C, text: 'json', metadata: { event_type: 't', event_payload: { a: 1 } } }),
    });
    expect(await json.json()).toMatchObject({ ok: true, message: { text: 'json' } });
    const form = await fetch(`${fake.url}auth.test`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'token=xoxb-test',
    });
    expect(await form.json()).toMatchObject({ ok: true });
    expect(fake.calls.map((c) => c.token)).toEqual(['xoxb-test', 'xoxb-test']);
    expect(fake.messages(C)[0]?.metadata).toEqual({ event_type: 't', event_payload: { a: 1 } });
  });
});

describe('agent sessions (agents.sessions.setStatus / rename)', () => {
  const T = '1700000000.000100';

  it('setStatus creates the thread’s session with its title and initiator on the first call only, then sets its status', async () => {
    const first = await client.agents.sessions.setStatus({
      channel_id: C,
      thread_ts: T,
      status: 'processing',
      title: 'Fix the build',
      initiator_user_id: 'U1',
    });
    expect(first).toMatchObject({ ok: true, status: 'processing', agent_status: 'processing', title: 'Fix the build' });
    expect(first.warning).toBeUndefined();
    const later = await client.agents.sessions.setStatus({ channel_id: C, thread_ts: T, status: 'active', title: 'Another title', initiator_user_id: 'U2' });
    expect(later).toMatchObject({ ok: true, status: 'active', title: 'Fix the build' });
    expect(fake.agentSession(C, T)).toEqual({
      channel: C,
      threadTs: T,
      status: 'active',
      title: 'Fix the build',
      initiator: 'U1',
      statuses: ['processing', 'active'],
      renames: [],
    });
    expect(fake.agentSession(C, '1700000000.000200')).toBeUndefined();
  });

  it('refuses what Slack’s reference does not allow: an unknown status, no thread, a title over 200 characters, an initiator outside the channel', async () => {
    const refused = async (args: Record<string, unknown>) =>
      (await rejection<WebAPIPlatformError>(client.apiCall('agents.sessions.setStatus', args))).data.error;
    expect(await refused({ channel_id: C, thread_ts: T, status: 'working' })).toBe('invalid_arguments');
    expect(await refused({ channel_id: C, status: 'processing' })).toBe('invalid_arguments');
    expect(await refused({ channel_id: C, thread_ts: T, status: 'processing', title: 'x'.repeat(201) })).toBe('invalid_arguments');
    fake.excludeFromChannel(C, 'U9');
    expect(await refused({ channel_id: C, thread_ts: T, status: 'processing', initiator_user_id: 'U9' })).toBe('user_not_in_channel');
    expect(fake.agentSessions()).toEqual([]);
  });

  it('warns missing_agent_session_stopped_event_subscription at every call while the app does not subscribe to agent_session_stopped', async () => {
    fake.setAgentSessionStopSubscribed(false);
    for (const status of ['processing', 'active']) {
      const answer = await client.agents.sessions.setStatus({ channel_id: C, thread_ts: T, status });
      expect(answer).toMatchObject({ ok: true, warning: 'missing_agent_session_stopped_event_subscription' });
      expect(answer.response_metadata?.warnings).toEqual(['missing_agent_session_stopped_event_subscription']);
    }
    fake.reset();
    expect((await client.agents.sessions.setStatus({ channel_id: C, thread_ts: T, status: 'processing' })).warning).toBeUndefined();
  });

  it('rename retitles an existing session and refuses a thread without one', async () => {
    const error = await rejection<WebAPIPlatformError>(client.agents.sessions.rename({ channel_id: C, thread_ts: T, title: 'New' }));
    expect(error.data.error).toBe('not_authorized');
    await client.agents.sessions.setStatus({ channel_id: C, thread_ts: T, status: 'processing', title: 'Old' });
    expect(await client.agents.sessions.rename({ channel_id: C, thread_ts: T, title: 'New' })).toMatchObject({ ok: true, title: 'New' });
    expect(fake.agentSession(C, T)).toMatchObject({ title: 'New', renames: ['New'] });
  });
});

describe('signSlack', () => {
  const secret = '8f742231b10e8888abcd99yyyzzz85a5';
  const body =
    'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';

  it("matches Slack's documented example", () => {
    expect(signSlack(secret, body, 1531420618)).toEqual({
      'x-slack-signature': 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
      'x-slack-request-timestamp': '1531420618',
    });
  });

  it('matches an independent HMAC and signs raw bytes identically', () => {
    const now = Math.floor(Date.now() / 1000);
    const signed = signSlack('s3cret', '{"a":"ä"}');
    const ts = Number(signed['x-slack-request-timestamp']);
    expect(Math.abs(ts - now)).toBeLessThanOrEqual(1);
    const expected = `v0=${createHmac('sha256', 's3cret').update(`v0:${ts}:{"a":"ä"}`).digest('hex')}`;
    expect(signed['x-slack-signature']).toBe(expected);
    expect(signSlack('s3cret', Buffer.from('{"a":"ä"}'), ts)['x-slack-signature']).toBe(expected);
  });
});
