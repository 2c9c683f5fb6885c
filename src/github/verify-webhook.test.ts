import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { githubSignatureHeaderMalformed, verifyGithubSignature } from './verify-webhook.js';

const SECRET = 'gh-webhook-secret-0123456789';
const BODY = Buffer.from('{"action":"labeled","issue":{"number":7,"title":"Café ☕"}}');
const HEX = createHmac('sha256', SECRET).update(BODY).digest('hex');

describe('verifyGithubSignature', () => {
  it.each<[string, string | undefined, boolean]>([
    ['the right signature', `sha256=${HEX}`, true],
    ['the right signature in upper case', `sha256=${HEX.toUpperCase()}`, true],
    ['one changed digit', `sha256=${HEX.slice(0, -1)}${HEX.endsWith('0') ? '1' : '0'}`, false],
    ['without the sha256= prefix', HEX, false],
    ['the old sha1= header style', `sha1=${HEX.slice(0, 40)}`, false],
    ['a short signature', `sha256=${HEX.slice(0, 10)}`, false],
    ['empty', '', false],
    ['missing', undefined, false],
  ])('%s → %s', async (_what, header, expected) => {
    expect(await verifyGithubSignature(SECRET, header, BODY)).toBe(expected);
  });

  it('is false for another secret, and with an empty secret', async () => {
    expect(await verifyGithubSignature('another-secret', `sha256=${HEX}`, BODY)).toBe(false);
    const unsigned = createHmac('sha256', '').update(BODY).digest('hex');
    expect(await verifyGithubSignature('', `sha256=${unsigned}`, BODY)).toBe(false);
  });

  it('checks the bytes received: a body that is not UTF-8 does not verify under its own HMAC', async () => {
    const raw = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]);
    expect(await verifyGithubSignature(SECRET, `sha256=${createHmac('sha256', SECRET).update(raw).digest('hex')}`, raw)).toBe(false);
  });
});

describe('githubSignatureHeaderMalformed (before the body is read)', () => {
  it.each<[string | undefined, boolean]>([
    [`sha256=${HEX}`, false],
    [undefined, true],
    ['', true],
    ['sha256=xyz', true],
    [HEX, true],
  ])('%s → %s', (header, expected) => {
    expect(githubSignatureHeaderMalformed(header)).toBe(expected);
  });
});
