import { createHmac, createSecretKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hmacOverBody, hmacOverTimestampedBody } from './verify-hmac.js';

const SECRET = 'hmac-variant-secret-0123456789';
const BODY = Buffer.from('{"title":"Café ☕"}');
const hex = (secret: string, ...parts: Array<string | Buffer>) => parts.reduce((hmac, part) => hmac.update(part), createHmac('sha256', secret)).digest('hex');
const NOW = 1_772_441_700_000;
const NOW_SECONDS = NOW / 1000;

describe('hmacOverBody', () => {
  const prefixed = hmacOverBody({ secret: SECRET, header: 'X-Signature', pattern: /^sha256=([0-9a-f]{64})$/i });
  const bare = hmacOverBody({ secret: SECRET, header: 'x-signature', pattern: /^([0-9a-f]{64})$/i });
  const headers = (value: string | undefined) => (value === undefined ? {} : { 'x-signature': value });

  it('names its header as given, whatever case the request used', () => {
    expect(prefixed.credential).toBe('X-Signature');
    expect(prefixed.verify({ 'x-signature': `sha256=${hex(SECRET, BODY)}` }, BODY, NOW)).toEqual({ ok: true });
  });

  it.each<[string, string | undefined, ReturnType<typeof prefixed.refuse>, boolean]>([
    ['the right signature', `sha256=${hex(SECRET, BODY)}`, undefined, true],
    ['in upper case', `SHA256=${hex(SECRET, BODY).toUpperCase()}`, undefined, true],
    ['with surrounding space', ` sha256=${hex(SECRET, BODY)} `, undefined, true],
    ['another body', `sha256=${hex(SECRET, '{}')}`, undefined, false],
    ['another secret', `sha256=${hex('other', BODY)}`, undefined, false],
    ['without the prefix', hex(SECRET, BODY), 'mismatch', false],
    ['too short', `sha256=${hex(SECRET, BODY).slice(0, 63)}`, 'mismatch', false],
    ['not hex', `sha256=${'z'.repeat(64)}`, 'mismatch', false],
    ['empty', '', 'missing', false],
    ['missing', undefined, 'missing', false],
  ])('%s: refused before reading → %s, verified → %s', (_what, value, refused, verified) => {
    expect(prefixed.refuse(headers(value), NOW)).toBe(refused);
    expect(prefixed.verify(headers(value), BODY, NOW).ok).toBe(verified);
  });

  it('a pattern without prefix takes the bare digest and refuses a prefixed one', () => {
    expect(bare.verify(headers(hex(SECRET, BODY)), BODY, NOW)).toEqual({ ok: true });
    expect(bare.refuse(headers(`sha256=${hex(SECRET, BODY)}`), NOW)).toBe('mismatch');
  });

  it('checks the exact bytes: invalid UTF-8 verifies under the HMAC of its bytes, not of a decoded string', () => {
    const raw = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]);
    expect(bare.verify(headers(hex(SECRET, raw)), raw, NOW)).toEqual({ ok: true });
    expect(bare.verify(headers(hex(SECRET, Buffer.from(raw.toString('utf8')))), raw, NOW).ok).toBe(false);
  });

  it('an empty secret signs nothing, and a key made beforehand works as its string', () => {
    const empty = hmacOverBody({ secret: '', header: 'x-signature', pattern: /^([0-9a-f]{64})$/ });
    expect(empty.verify(headers(hex('', BODY)), BODY, NOW)).toEqual({ ok: false, problem: 'mismatch' });
    const keyed = hmacOverBody({ secret: createSecretKey(Buffer.from(SECRET)), header: 'x-signature', pattern: /^([0-9a-f]{64})$/ });
    expect(keyed.verify(headers(hex(SECRET, BODY)), BODY, NOW)).toEqual({ ok: true });
  });

  it('a pattern whose group is not 64 hex digits never matches (no length is taken for a digest)', () => {
    const loose = hmacOverBody({ secret: SECRET, header: 'x-signature', pattern: /^([0-9a-f]+)$/ });
    expect(loose.verify(headers(hex(SECRET, BODY).slice(0, 40)), BODY, NOW)).toEqual({ ok: false, problem: 'mismatch' });
  });
});

describe('hmacOverTimestampedBody', () => {
  const verifier = hmacOverTimestampedBody({
    secret: SECRET,
    header: 'x-sig',
    timestampHeader: 'x-sig-time',
    pattern: /^v0=([0-9a-f]{64})$/,
    prefix: (timestamp) => `v0:${timestamp}:`,
    windowSeconds: 300,
  });
  const signed = (timestamp: number, body = BODY) => ({ 'x-sig': `v0=${hex(SECRET, `v0:${timestamp}:`, body)}`, 'x-sig-time': String(timestamp) });

  it('signs the prefix made of the timestamp, then the raw body', () => {
    expect(verifier.refuse(signed(NOW_SECONDS), NOW)).toBeUndefined();
    expect(verifier.verify(signed(NOW_SECONDS), BODY, NOW)).toEqual({ ok: true });
    // The same signature under another timestamp signs something else.
    expect(verifier.verify({ ...signed(NOW_SECONDS), 'x-sig-time': String(NOW_SECONDS - 1) }, BODY, NOW)).toEqual({ ok: false, problem: 'mismatch' });
    expect(verifier.verify(signed(NOW_SECONDS, Buffer.from('{}')), BODY, NOW)).toEqual({ ok: false, problem: 'mismatch' });
  });

  it.each<[string, Record<string, string>, 'missing' | 'stale' | 'mismatch' | undefined]>([
    ['five minutes old exactly', signed(NOW_SECONDS - 300), undefined],
    ['five minutes ahead exactly', signed(NOW_SECONDS + 300), undefined],
    ['older than the window', signed(NOW_SECONDS - 301), 'stale'],
    ['further ahead than the window', signed(NOW_SECONDS + 301), 'stale'],
    ['no timestamp', { 'x-sig': signed(NOW_SECONDS)['x-sig'] }, 'missing'],
    ['a timestamp in milliseconds', signed(NOW), 'stale'],
    ['a timestamp that is not whole seconds', { ...signed(NOW_SECONDS), 'x-sig-time': `${NOW_SECONDS}.5` }, 'missing'],
    ['no signature', { 'x-sig-time': String(NOW_SECONDS) }, 'missing'],
    ['a signature in upper case where the pattern wants lower', { ...signed(NOW_SECONDS), 'x-sig': signed(NOW_SECONDS)['x-sig'].toUpperCase() }, 'mismatch'],
  ])('%s → %s, before the body is read and again once it is', (_what, headers, expected) => {
    expect(verifier.refuse(headers, NOW)).toBe(expected);
    if (expected) expect(verifier.verify(headers, BODY, NOW)).toEqual({ ok: false, problem: expected });
  });

  it('a body that took long to arrive is stale once read, though its headers were fresh', () => {
    const headers = signed(NOW_SECONDS);
    expect(verifier.refuse(headers, NOW)).toBeUndefined();
    expect(verifier.verify(headers, BODY, NOW + 301_000)).toEqual({ ok: false, problem: 'stale' });
  });
});
