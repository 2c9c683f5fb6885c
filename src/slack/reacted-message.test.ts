import { LogLevel, WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSlackApi, type FakeSlackApi } from '../../test/fakes/slack-api.js';
import { readReactedMessage } from './reacted-message.js';

// The worker's read of a reacted message, through the real WebClient against the fake Slack Web API.
let fake: FakeSlackApi;
let client: WebClient;
const C = 'C0CHANNEL01';

beforeAll(async () => {
  fake = await startFakeSlackApi({ token: 'xoxb-test' });
  client = new WebClient('xoxb-test', { slackApiUrl: fake.url, retryConfig: { retries: 0 }, rejectRateLimitedCalls: true, logLevel: LogLevel.ERROR });
});
afterAll(() => fake.close());

describe('readReactedMessage', () => {
  it('reads a top-level message with one conversations.history call and quotes it as its author’s request', async () => {
    const message = fake.addUserMessage({ channel: C, user: 'U1', text: 'Fix the &lt;Login&gt; page &amp; its test' });
    const read = await readReactedMessage(client, { channel: C, ts: message.ts }, 'UBOT');
    expect(read).toEqual({
      kind: 'request',
      prompt: 'Do what this Slack message (by <@U1>) asks:\n> Fix the <Login> page & its test',
      title: 'Fix the <Login> page & its test',
    });
    const call = fake.callsTo('conversations.history').at(-1);
    expect(call?.args).toMatchObject({ channel: C, latest: message.ts, oldest: message.ts });
    expect(String(call?.args['limit'])).toBe('1');
  });

  it.each([
    [
      'a reply in a thread',
      async () =>
        fake.addUserMessage({ channel: C, user: 'U1', text: 'in a thread', thread_ts: fake.addUserMessage({ channel: C, user: 'U1', text: 'parent' }).ts }).ts,
      'top of the channel',
    ],
    ['a deleted (unknown) message', async () => '1700009999.000100', 'top of the channel'],
    ['a message without text', async () => fake.addUserMessage({ channel: C, user: 'U1', text: '   ' }).ts, 'no text'],
    ['a message an app wrote', async () => (await client.chat.postMessage({ channel: C, text: 'Deploy finished' })).ts as string, 'not written by a person'],
  ])('refuses %s with a reason', async (_name, makeTs, reason) => {
    const read = await readReactedMessage(client, { channel: C, ts: await makeTs() }, 'UBOT');
    expect(read.kind).toBe('refused');
    expect(read.kind === 'refused' && read.reason).toContain(reason);
  });

  it('refuses a reference without a channel and ts, and reads nothing', async () => {
    const calls = fake.calls.length;
    expect(await readReactedMessage(client, { channel: C }, 'UBOT')).toMatchObject({ kind: 'refused' });
    expect(fake.calls.length).toBe(calls);
  });

  it('throws when Slack cannot be reached (the worker retries)', async () => {
    const offline = new WebClient('xoxb-test', { slackApiUrl: 'http://127.0.0.1:9/api/', retryConfig: { retries: 0 }, logLevel: LogLevel.ERROR });
    await expect(readReactedMessage(offline, { channel: C, ts: '1700000000.000100' }, 'UBOT')).rejects.toThrow();
  });
});
