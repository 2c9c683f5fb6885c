import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { standardWebhooks, standardWebhooksKey } from './verify-standard-webhooks.js';

// The signing example of the Standard Webhooks reference libraries.
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const ID = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
const TIMESTAMP = 1614265330;
const BODY = Buffer.from('{"test": 2432232314}');
const SIGNATURE = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=';
const NOW = TIMESTAMP * 1000;

const headers = (fields: Partial<Record<'id' | 'timestamp' | 'signature', string>> = {}) => {
  const all = { id: ID, timestamp: String(TIMESTAMP), signature: SIGNATURE, ...fields };
  return Object.fromEntries(
    Object.entries({ 'webhook-id': all.id, 'webhook-timestamp': all.timestamp, 'webhook-signature': all.signature }).filter(([, value]) => value !== ''),
  );
};
const sign = (secret: string, id: string, timestamp: number, body: Buffer) =>
  `v1,${createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
    .update(`${id}.${timestamp}.`)
    .update(body)
    .digest('base64')}`;

describe('standardWebhooks', () => {
  const verifier = standardWebhooks({ secret: SECRET });

  it('verifies the reference example: HMAC of "<id>.<timestamp>.<body>" under the base64 key of the whsec_ secret', () => {
    expect(verifier.credential).toBe('webhook-signature');
    expect(verifier.refuse(headers(), NOW)).toBeUndefined();
    expect(verifier.verify(headers(), BODY, NOW)).toEqual({ ok: true });
  });

  it('finds its signature among several (a secret being rotated), skipping other versions', () => {
    const other = 'v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=';
    const signature = [other, 'v2,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=', SIGNATURE, other].join(' ');
    expect(verifier.verify(headers({ signature }), BODY, NOW)).toEqual({ ok: true });
    expect(verifier.verify(headers({ signature: [other, other].join(' ') }), BODY, NOW)).toEqual({ ok: false, problem: 'mismatch' });
  });

  it.each<[string, Buffer, Parameters<typeof headers>[0], 'mismatch']>([
    ['another body', Buffer.from('{"test": 2432232315}'), {}, 'mismatch'],
    ['another id', BODY, { id: 'msg_other' }, 'mismatch'],
    ['another secret', BODY, { signature: sign('whsec_c2VjcmV0LW90aGVyLXRoYW4tdGhlLW9uZQ==', ID, TIMESTAMP, BODY) }, 'mismatch'],
  ])('%s → %s', (_what, body, fields, expected) => {
    expect(verifier.refuse(headers(fields), NOW)).toBeUndefined();
    expect(verifier.verify(headers(fields), body, NOW)).toEqual({ ok: false, problem: expected });
  });

  it.each<[string, Parameters<typeof headers>[0], number, 'missing' | 'stale' | 'mismatch']>([
    ['no webhook-id', { id: '' }, NOW, 'missing'],
    ['no webhook-timestamp', { timestamp: '' }, NOW, 'missing'],
    ['no webhook-signature', { signature: '' }, NOW, 'missing'],
    ['a timestamp that is not whole seconds', { timestamp: 'hello' }, NOW, 'missing'],
    ['more than five minutes old', {}, NOW + 301_000, 'stale'],
    ['more than five minutes ahead', {}, NOW - 301_000, 'stale'],
    ['only a v2 signature', { signature: SIGNATURE.replace('v1,', 'v2,') }, NOW, 'mismatch'],
    ['a cut signature', { signature: SIGNATURE.slice(0, 8) }, NOW, 'mismatch'],
    ['an empty v1 signature', { signature: 'v1,' }, NOW, 'mismatch'],
  ])('%s → %s before the body is read', (_what, fields, now, expected) => {
    expect(verifier.refuse(headers(fields), now)).toBe(expected);
    expect(verifier.verify(headers(fields), BODY, now)).toEqual({ ok: false, problem: expected });
  });

  it('five minutes either way is inside the window; another window may be asked', () => {
    expect(verifier.refuse(headers(), NOW + 300_000)).toBeUndefined();
    expect(verifier.refuse(headers(), NOW - 300_000)).toBeUndefined();
    expect(standardWebhooks({ secret: SECRET, windowSeconds: 60 }).refuse(headers(), NOW + 61_000)).toBe('stale');
  });

  it.each(['', 'whsec_', 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'whsec_not base64!'])(
    'a secret that is not whsec_<base64> (%j) stops the construction',
    (secret) => {
      expect(() => standardWebhooksKey(secret)).toThrow(/whsec_ followed by base64/);
      expect(() => standardWebhooks({ secret })).toThrow(/whsec_ followed by base64/);
    },
  );
});
