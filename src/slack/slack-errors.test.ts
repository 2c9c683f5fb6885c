import { LogLevel, WebClient } from '@slack/web-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSlackApi, type FakeSlackApi } from '../../test/fakes/slack-api.js';
import { NotifierError } from '../core/ports/notifier.js';
import { isSlackApiError, redactSecrets, slackErrorCode, toNotifierError } from './slack-errors.js';
import { slackFetch } from './slack-fetch.js';

const TOKEN = 'xoxb-1234-5678-SECRETsecret';
let fake: FakeSlackApi;

beforeAll(async () => {
  fake = await startFakeSlackApi({ token: TOKEN });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

function expectNoToken(error: NotifierError): void {
  expect(error.message).not.toContain('SECRET');
  expect(`${error.code} ${error.message} ${String(error.stack)}`).not.toMatch(/xoxb/);
}

/**
 * Every mapping holds for both ways a client reaches Slack: the global fetch and the service's own
 * (`slackFetch`), which must keep fetch's error shapes.
 */
describe.each([
  ['the global fetch', {}],
  ['slackFetch', { fetch: slackFetch }],
])('toNotifierError, through %s', (_transport, transport) => {
  const options = (extra: object = {}) => ({ retryConfig: { retries: 0 }, logLevel: LogLevel.ERROR, ...transport, ...extra });
  let client: WebClient;
  beforeAll(() => {
    client = new WebClient(TOKEN, options({ slackApiUrl: fake.url, rejectRateLimitedCalls: true }));
  });

  /** The NotifierError a failing chat.postMessage maps to. */
  async function mappedPost(c: WebClient = client): Promise<NotifierError> {
    try {
      await c.chat.postMessage({ channel: 'C1', text: 'x' });
    } catch (error) {
      expect(isSlackApiError(error)).toBe(true);
      return toNotifierError(error, 'chat.postMessage');
    }
    throw new Error('expected the call to fail');
  }

  it('maps a 429 to retryable rate_limited with retryAfterMs', async () => {
    fake.failNext('chat.postMessage', { status: 429, retryAfter: 12 });
    const error = await mappedPost();
    expect(error).toBeInstanceOf(NotifierError);
    expect(error).toMatchObject({ code: 'rate_limited', retryable: true, retryAfterMs: 12_000 });
    expect(error.message).toBe('Slack chat.postMessage was rate limited; retry after 12 s');
    expectNoToken(error);
  });

  it('maps a 500 to a retryable http error', async () => {
    fake.failNext('chat.postMessage', { status: 500 });
    const error = await mappedPost();
    expect(error).toMatchObject({ code: 'http_500', retryable: true, retryAfterMs: undefined });
    expectNoToken(error);
  });

  it.each(['channel_not_found', 'not_in_channel', 'invalid_auth', 'account_inactive', 'msg_too_long', 'is_archived'])(
    'maps platform error %s to a permanent error with that code',
    async (slackError) => {
      fake.failNext('chat.postMessage', { error: slackError });
      const error = await mappedPost();
      expect(error).toMatchObject({ code: slackError, retryable: false });
      expect(error.message).toBe(`Slack chat.postMessage failed: ${slackError}`);
      expectNoToken(error);
    },
  );

  it.each(['internal_error', 'fatal_error', 'service_unavailable', 'request_timeout', 'ratelimited'])('retries platform error %s', async (slackError) => {
    fake.failNext('chat.postMessage', { error: slackError });
    expect(await mappedPost()).toMatchObject({ code: slackError, retryable: true });
  });

  it('maps a wrong token to invalid_auth without the token in the text', async () => {
    const other = new WebClient('xoxb-9999-wrong-TOKENVALUE', options({ slackApiUrl: fake.url }));
    const error = await mappedPost(other);
    expect(error).toMatchObject({ code: 'invalid_auth', retryable: false });
    expect(error.message).not.toContain('TOKENVALUE');
  });

  it('maps a network failure to a retryable request error', async () => {
    const closed = await startFakeSlackApi();
    const url = closed.url;
    await closed.close();
    const offline = new WebClient(TOKEN, options({ slackApiUrl: url }));
    const error = await mappedPost(offline);
    expect(error).toMatchObject({ code: 'request_error', retryable: true });
    expect(error.message).toBe('Slack chat.postMessage request failed (ECONNREFUSED)');
    expectNoToken(error);
  });

  it('maps a timeout to a retryable request error', async () => {
    fake.failNext('chat.postMessage', { delayMs: 300 });
    const slow = new WebClient(TOKEN, options({ slackApiUrl: fake.url, timeout: 50 }));
    expect(await mappedPost(slow)).toMatchObject({ code: 'request_error', retryable: true, message: 'Slack chat.postMessage request failed (timeout)' });
  });

  it('keeps NotifierErrors and wraps unknown errors as retryable without their text', () => {
    const own = new NotifierError('x', { code: 'c', retryable: false });
    expect(toNotifierError(own, 'm')).toBe(own);
    const unknown = toNotifierError(new TypeError(`bad ${TOKEN}`), 'chat.update');
    expect(unknown).toMatchObject({ code: 'unexpected_error', retryable: true, message: 'Slack chat.update failed unexpectedly (TypeError)' });
    expect(isSlackApiError(new TypeError('x'))).toBe(false);
  });

  it('reads the Slack error string only from platform errors', async () => {
    fake.failNext('reactions.add', { error: 'already_reacted' });
    const error = await client.reactions.add({ channel: 'C1', timestamp: '1.1', name: 'eyes' }).catch((e: unknown) => e);
    expect(slackErrorCode(error)).toBe('already_reacted');
    expect(slackErrorCode(new Error('x'))).toBeUndefined();
  });
});

describe('redactSecrets', () => {
  it('removes anything shaped like a Slack token', () => {
    expect(redactSecrets('a xoxb-1-2-abc b xapp-1-A1-xyz c xoxp-9')).toBe('a [redacted] b [redacted] c [redacted]');
  });
});
