import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { CapturingLogger } from '../../test/core/capturing-logger.js';
import { rawRequest, within } from '../../test/helpers/raw-http.js';
import { createMetrics } from './metrics.js';
import { createHttpServer, listen, type RunningHttpServer } from './server.js';
import { signedWebhookEndpoint, type WebhookRequest } from './signed-webhook.js';
import { bearerToken, type BearerCheck } from './verify-bearer.js';
import { sharedToken } from './verify-shared-token.js';
import { standardWebhooks } from './verify-standard-webhooks.js';
import type { WebhookVerifier } from './webhook-verifier.js';

/*
 * The shared edge with a surface made up here, verified by each kind of credential a surface may
 * bring: what it takes of a surface is its description, nothing else. Real HTTP on loopback.
 */

const PATH = '/made-up/webhook';
const NOW = 1_772_441_700_000;
const SECRET = 'whsec_c2VjcmV0LW9mLXRoZS1tYWRlLXVwLXN1cmZhY2U=';
const TOKEN = 'made-up-token-0123456789';
const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJtYWRlLXVwIn0.c2lnbmF0dXJl';

interface MadeUp {
  kind: string;
  sentAt?: number;
}

let running: RunningHttpServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

/** The made-up surface's endpoint behind `verifier`, and what reached its handler. */
async function start(verifier: WebhookVerifier) {
  const logger = new CapturingLogger();
  const handled: Array<{ value: MadeUp; request: Omit<WebhookRequest, 'headers'> }> = [];
  const endpoint = signedWebhookEndpoint<MadeUp>({
    path: PATH,
    name: 'made-up',
    verifier,
    limitBytes: 1024,
    now: () => NOW,
    delivery: { header: 'X-Delivery', shape: /^[a-z0-9-]{1,40}$/ },
    parse: (text) => {
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        return { ok: false, reason: 'body is not JSON' };
      }
      const value = json as MadeUp;
      if (typeof value.kind !== 'string') return { ok: false, reason: 'kind is missing' };
      return value.kind === 'other' ? { ok: true, ignored: 'kind other is not handled', log: { kind: 'other' } } : { ok: true, value };
    },
    outdated: (value, nowMs) => (value.sentAt !== undefined && nowMs - value.sentAt > 60_000 ? 'sentAt is more than 60 s ago' : undefined),
    handle: async (value, { deliveryId, claims }) => {
      handled.push({ value, request: { deliveryId, claims } });
      return { outcome: 'stored' };
    },
    logFields: (value) => ({ kind: value.kind }),
    logger,
  });
  const server = createHttpServer({ routes: [endpoint], metrics: createMetrics({ defaultMetrics: false }), logger });
  running = await listen(server, 0, '127.0.0.1');
  const post = async (body: string | Buffer, headers: Record<string, string>) => {
    const response = await fetch(`${running?.url}${PATH}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  return { logger, handled, post, url: running.url };
}

/** Headers a Standard Webhooks sender would send for `body`, at `seconds`. */
function standardHeaders(body: string | Buffer, id = 'msg_1', seconds = NOW / 1000): Record<string, string> {
  const key = Buffer.from(SECRET.slice('whsec_'.length), 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${seconds}.`).update(body).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(seconds), 'webhook-signature': `v1,${signature}`, 'x-delivery': 'delivery-1' };
}

/** Sends only the head of a request that declares a body, and waits for an answer made without it. */
async function answeredBeforeBody(url: string, headers: Record<string, string>) {
  const request = rawRequest(url, 'POST', PATH, { 'content-type': 'application/json', 'content-length': 1000, ...headers });
  try {
    return {
      status: await within(request.status, 5_000),
      closed: (await within(request.closed, 5_000)) !== undefined,
      body: await within(request.answerBody, 5_000),
    };
  } finally {
    request.socket.destroy();
  }
}

describe('a surface signing with Standard Webhooks', () => {
  it('a signed delivery reaches the handler with its delivery id and is answered with the outcome', async () => {
    const { post, handled } = await start(standardWebhooks({ secret: SECRET }));
    const body = JSON.stringify({ kind: 'comment' });
    expect(await post(body, standardHeaders(body))).toEqual({ status: 200, body: { ok: true, outcome: 'stored' } });
    expect(handled).toEqual([{ value: { kind: 'comment' }, request: { deliveryId: 'delivery-1', claims: undefined } }]);
  });

  it('one error mapping: 401 on the credential, 413 over the limit, 400 malformed, 200 ignored, 401 stale_timestamp; only a good delivery is handled', async () => {
    const { post, handled, logger } = await start(standardWebhooks({ secret: SECRET }));
    const good = JSON.stringify({ kind: 'comment' });
    const invalidUtf8 = Buffer.concat([Buffer.from('{"kind":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    const cases: Array<[string, string | Buffer, Record<string, string>, number, Record<string, unknown>]> = [
      [
        'another body',
        '{"kind":"other comment"}',
        standardHeaders(good),
        401,
        { error: 'invalid_signature', message: 'webhook-signature is missing or does not match the body' },
      ],
      [
        'no signature',
        good,
        { ...standardHeaders(good), 'webhook-signature': '' },
        401,
        { error: 'invalid_signature', message: 'webhook-signature is missing or does not match the body' },
      ],
      [
        'a stale timestamp',
        good,
        standardHeaders(good, 'msg_1', NOW / 1000 - 600),
        401,
        { error: 'invalid_signature', message: expect.stringMatching(/^webhook-signature: the request was sent outside the time allowed/) },
      ],
      ['over the limit', 'x'.repeat(1025), standardHeaders('x'.repeat(1025)), 413, { error: 'payload_too_large', message: 'request body over 1024 bytes' }],
      ['invalid UTF-8', invalidUtf8, standardHeaders(invalidUtf8), 400, { error: 'malformed', message: 'body is not valid UTF-8' }],
      ['not JSON', '{kind', standardHeaders('{kind'), 400, { error: 'malformed', message: 'body is not JSON' }],
      ['an unreadable field', '{}', standardHeaders('{}'), 400, { error: 'malformed', message: 'kind is missing' }],
      ['an event not handled', '{"kind":"other"}', standardHeaders('{"kind":"other"}'), 200, { ok: true, outcome: 'ignored' }],
      [
        'a time in the body out of its window',
        JSON.stringify({ kind: 'comment', sentAt: NOW - 61_000 }),
        standardHeaders(JSON.stringify({ kind: 'comment', sentAt: NOW - 61_000 })),
        401,
        { error: 'stale_timestamp', message: 'sentAt is more than 60 s ago' },
      ],
    ];
    for (const [what, body, headers, status, answer] of cases) expect({ what, ...(await post(body, headers)) }).toEqual({ what, status, body: answer });
    expect(handled).toEqual([]);
    expect(logger.lines.filter((line) => line.level !== 'debug')).toEqual([]);
    expect(logger.lines.find((line) => line.msg === 'made-up webhook: event not handled')?.fields).toEqual({ kind: 'other', deliveryId: 'delivery-1' });
  });

  it('a delivery id not of its shape is not given to the handler', async () => {
    const { post, handled } = await start(standardWebhooks({ secret: SECRET }));
    const body = JSON.stringify({ kind: 'comment' });
    expect((await post(body, { ...standardHeaders(body), 'x-delivery': 'NOT/ONE' })).status).toBe(200);
    expect(handled.map(({ request }) => request.deliveryId)).toEqual([undefined]);
  });

  it('missing headers are refused before a byte of the body is read', async () => {
    const { url } = await start(standardWebhooks({ secret: SECRET }));
    expect(await answeredBeforeBody(url, { 'webhook-id': 'msg_1' })).toMatchObject({ status: 401, closed: true });
  });
});

describe('a surface sending a shared token', () => {
  it('a wrong token is refused before the body is read; the right one is handled', async () => {
    const { url, post, handled } = await start(sharedToken({ header: 'X-Made-Up-Token', token: TOKEN }));
    const refused = await answeredBeforeBody(url, { 'x-made-up-token': 'not-the-token' });
    expect(refused).toMatchObject({ status: 401, closed: true });
    expect(JSON.parse(refused.body ?? '')).toEqual({ error: 'invalid_signature', message: 'X-Made-Up-Token is missing or does not match the body' });
    expect(await post('{"kind":"comment"}', { 'x-made-up-token': TOKEN })).toEqual({ status: 200, body: { ok: true, outcome: 'stored' } });
    expect(handled).toHaveLength(1);
  });
});

describe('a surface checking a bearer token (a JWT)', () => {
  const checkOf =
    (asked: string[]): BearerCheck =>
    async (token) => {
      asked.push(token);
      return token === JWT ? { ok: true, claims: { serviceurl: 'https://service.example/' } } : { ok: false, problem: 'mismatch' };
    };

  it('the token is checked before a byte of the body is read: a refused one never has its body read', async () => {
    const asked: string[] = [];
    const { url, handled } = await start(bearerToken({ check: checkOf(asked) }));
    const forged = `${JWT.slice(0, -2)}xx`;
    expect(await answeredBeforeBody(url, { authorization: `Bearer ${forged}` })).toMatchObject({ status: 401, closed: true });
    expect(asked).toEqual([forged]);
    // A header that cannot be a token is refused without asking the check.
    expect(await answeredBeforeBody(url, { authorization: 'Basic dXNlcjpwYXNz' })).toMatchObject({ status: 401, closed: true });
    expect(asked).toEqual([forged]);
    expect(handled).toEqual([]);
  });

  it('an admitted token’s claims reach the surface’s handler beside the body', async () => {
    const { post, handled } = await start(bearerToken({ check: checkOf([]) }));
    expect(await post('{"kind":"message"}', { authorization: `Bearer ${JWT}`, 'x-delivery': 'activity-1' })).toEqual({
      status: 200,
      body: { ok: true, outcome: 'stored' },
    });
    expect(handled).toEqual([{ value: { kind: 'message' }, request: { deliveryId: 'activity-1', claims: { serviceurl: 'https://service.example/' } } }]);
  });
});
