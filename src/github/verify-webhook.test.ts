import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { githubSignature } from './verify-webhook.js';

const SECRET = 'gh-webhook-secret-0123456789';
const BODY = Buffer.from('{"action":"labeled","issue":{"number":7,"title":"Café ☕"}}');
const HEX = createHmac('sha256', SECRET).update(BODY).digest('hex');
const NOW = 1_772_441_700_000;

const headers = (header: string | undefined) => (header === undefined ? {} : { 'x-hub-signature-256': header });
/** Whether the verifier takes `header` as the signature of `body`. */
const verifies = (secret: string, header: string | undefined, body: Buffer) => githubSignature(secret).verify(headers(header), body, NOW).ok;

describe('githubSignature: verify', () => {
  it.each<[string, string | undefined, boolean]>([
    ['the right signature', `sha256=${HEX}`, true],
    ['the right signature in upper case', `sha256=${HEX.toUpperCase()}`, true],
    ['one changed digit', `sha256=${HEX.slice(0, -1)}${HEX.endsWith('0') ? '1' : '0'}`, false],
    ['without the sha256= prefix', HEX, false],
    ['the old sha1= header style', `sha1=${HEX.slice(0, 40)}`, false],
    ['a short signature', `sha256=${HEX.slice(0, 10)}`, false],
    ['empty', '', false],
    ['missing', undefined, false],
  ])('%s → %s', (_what, header, expected) => {
    expect(verifies(SECRET, header, BODY)).toBe(expected);
  });

  it('is false for another secret, and with an empty secret', () => {
    expect(verifies('another-secret', `sha256=${HEX}`, BODY)).toBe(false);
    const unsigned = createHmac('sha256', '').update(BODY).digest('hex');
    expect(verifies('', `sha256=${unsigned}`, BODY)).toBe(false);
  });

  it('checks the bytes received, not a decoded string: a body that is not UTF-8 verifies under the HMAC of its bytes only', () => {
    const raw = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]);
    expect(verifies(SECRET, `sha256=${createHmac('sha256', SECRET).update(raw).digest('hex')}`, raw)).toBe(true);
    const decoded = Buffer.from(new TextDecoder().decode(raw));
    expect(verifies(SECRET, `sha256=${createHmac('sha256', SECRET).update(decoded).digest('hex')}`, raw)).toBe(false);
  });
});

describe('githubSignature: refuse (before the body is read)', () => {
  it.each<[string | undefined, string | undefined]>([
    [`sha256=${HEX}`, undefined],
    [undefined, 'missing'],
    ['', 'missing'],
    ['sha256=xyz', 'mismatch'],
    [HEX, 'mismatch'],
  ])('%s → %s', (header, expected) => {
    expect(githubSignature(SECRET).refuse(headers(header), NOW)).toBe(expected);
  });
});
