/**
 * The HTTP edge against anonymous callers, on the real service (Slack over HTTP
 * and Linear against the fakes, the emulator as the run API, real sockets). What the headers already
 * condemn is refused before a byte of the body is read; an aborted body is the client's doing (debug,
 * never error); /readyz is cached and tells anonymous callers only ok / fail.
 * The memory figure (400 held bodies) is measured on a child process in test/stress/held-bodies.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator, RequestLogEntry } from '../../src/emulator/index.js';
import type { RunningService } from '../../src/main.js';
import { CapturingLogger } from '../core/capturing-logger.js';
import { startFakeLinearApi, type FakeLinearApi } from '../fakes/linear-api.js';
import type { FakeSlackApi } from '../fakes/slack-api.js';
import { LINEAR_KEY } from '../linear/linear-harness.js';
import { signSlack } from '../fakes/slack-signing.js';
import { rawRequest, within } from '../helpers/raw-http.js';
import { SLACK_SECRET, startSlackBridge, type SlackBridge } from '../helpers/slack-bridge.js';
import { until } from '../helpers/until.js';

const MIB = 1024 * 1024;
const nowSeconds = () => Math.floor(Date.now() / 1000);

let bridge: SlackBridge;
let slack: FakeSlackApi, linear: FakeLinearApi, emulator: RunningEmulator, service: RunningService;
const logger = new CapturingLogger();

beforeAll(async () => {
  linear = await startFakeLinearApi({ authorization: LINEAR_KEY });
  bridge = await startSlackBridge({ linear, yaml: 'tracker:\n  interval: 10m\n', logger });
  ({ slack, emulator, service } = bridge);
});
afterAll(async () => {
  await bridge?.stop();
  await linear?.close();
});

const slackHeaders = (timestamp: number) => ({ 'x-slack-request-timestamp': String(timestamp), 'x-slack-signature': `v0=${'0'.repeat(64)}` });

describe('what the headers condemn is refused before the body is read', () => {
  it.each([
    ['Slack without signature headers', '/slack/events', {}, 401],
    ['Slack with a timestamp 10 minutes old', '/slack/events', slackHeaders(nowSeconds() - 600), 401],
    ['Slack with a timestamp 10 minutes ahead', '/slack/events', slackHeaders(nowSeconds() + 600), 401],
    ['Slack with a signature but no timestamp', '/slack/events', { 'x-slack-signature': `v0=${'0'.repeat(64)}` }, 401],
    ['Linear without linear-signature', '/linear/webhook', {}, 401],
    ['Linear with a linear-signature that is not 64 hex digits', '/linear/webhook', { 'linear-signature': 'sha256=abc' }, 401],
    ['Slack declaring a body over 1 MiB', '/slack/events', slackHeaders(nowSeconds()), 413],
  ])('%s (%s): %i while the declared body has not been sent', async (what, path, headers, expected) => {
    const length = expected === 413 ? MIB + 1 : MIB;
    const request = rawRequest(service.url, 'POST', path, { 'content-type': 'application/json', 'content-length': length, ...headers });
    try {
      // Not one byte of the body is sent: an answer can only come from the headers.
      expect(await within(request.status, 5_000), what).toBe(expected);
      // The unread megabyte is not waited for: the connection is closed.
      expect(await within(request.closed, 5_000)).toBeDefined();
    } finally {
      request.socket.destroy();
    }
  });

  it('a small unsigned body is refused with 401 and the connection stays usable', async () => {
    const body = JSON.stringify({ type: 'event_callback' });
    const response = await fetch(`${service.url}/slack/events`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: string }).error).toBe('invalid_signature');
  });

  it('refusals before the body cost no upstream call and no log line above debug', async () => {
    const slackCalls = slack.calls.length;
    const linearCalls = linear.calls.length;
    const apiCalls = (await emulatorRequests()).length;
    const lines = logger.lines.length;
    for (const path of ['/slack/events', '/linear/webhook']) {
      const response = await fetch(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(response.status).toBe(401);
    }
    expect([slack.calls.length, linear.calls.length, (await emulatorRequests()).length]).toEqual([slackCalls, linearCalls, apiCalls]);
    expect(logger.lines.slice(lines).filter((line) => line.level !== 'debug')).toEqual([]);
  });
});

describe('a body the client aborts', () => {
  it('is logged at debug as the client closing, never at error', async () => {
    const lines = logger.lines.length;
    const signed = signSlack(SLACK_SECRET, 'x'.repeat(1000));
    const request = rawRequest(
      service.url,
      'POST',
      '/slack/events',
      { 'content-type': 'application/json', 'content-length': 1000, ...signed },
      'x'.repeat(100),
    );
    await request.write('');
    request.socket.destroy();
    const line = await until(
      () => logger.lines.slice(lines).find((entry) => entry.fields['route'] === '/slack/events'),
      'the service to log the aborted request',
    );
    expect(line.level).toBe('debug');
    expect(line.fields['code']).toBe('client_aborted');
    expect(logger.lines.slice(lines).filter((entry) => entry.level === 'error')).toEqual([]);
  });
});

async function emulatorRequests(): Promise<RequestLogEntry[]> {
  const response = await fetch(`${emulator.url}/_emulator/requests`);
  return ((await response.json()) as { requests: RequestLogEntry[] }).requests;
}
const probes = async () =>
  (await emulatorRequests()).filter((entry) => entry.method === 'GET' && entry.path.endsWith('/agent/runs') && entry.query['limit'] === '1');

describe('/readyz', () => {
  it('40 calls in a burst make at most 3 requests to the run API, and say only ok or fail per check', async () => {
    const before = (await probes()).length;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => fetch(`${service.url}/readyz`).then(async (response) => ({ status: response.status, body: await response.json() }))),
    );
    for (let index = 0; index < 20; index++) {
      const response = await fetch(`${service.url}/readyz`);
      answers.push({ status: response.status, body: await response.json() });
    }
    expect((await probes()).length - before).toBeLessThanOrEqual(3);
    for (const answer of answers) expect(answer).toEqual({ status: 200, body: { status: 'ready', checks: { database: 'ok', agent_api: 'ok' } } });
  });
});
