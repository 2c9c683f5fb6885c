import { createHmac, createSecretKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { slackSignature } from './verify-signature.js';

const SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const TIMESTAMP = 1531420618;
// Slack's documented example request and signature.
const BODY =
  'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
const SIGNATURE = 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503';

/** The signature headers as Slack sends them, leaving out what is undefined. */
const headers = (signature: string | undefined, timestamp: string | undefined) => ({
  ...(signature !== undefined && { 'x-slack-signature': signature }),
  ...(timestamp !== undefined && { 'x-slack-request-timestamp': timestamp }),
});
const ms = (seconds: number) => seconds * 1000;

describe('slackSignature: verify', () => {
  it.each([
    ['Slack’s example', SIGNATURE, String(TIMESTAMP), TIMESTAMP, { ok: true }],
    ['a changed signature', SIGNATURE.replace('a2', 'b2'), String(TIMESTAMP), TIMESTAMP, { ok: false, problem: 'mismatch' }],
    ['a short signature', 'v0=abc', String(TIMESTAMP), TIMESTAMP, { ok: false, problem: 'mismatch' }],
    ['older than five minutes', SIGNATURE, String(TIMESTAMP), TIMESTAMP + 301, { ok: false, problem: 'stale' }],
    ['from the future', SIGNATURE, String(TIMESTAMP), TIMESTAMP - 301, { ok: false, problem: 'stale' }],
    ['no signature', undefined, String(TIMESTAMP), TIMESTAMP, { ok: false, problem: 'missing' }],
    ['a timestamp that is not a number', SIGNATURE, '15314x', TIMESTAMP, { ok: false, problem: 'missing' }],
  ])('%s', (_what, signature, timestamp, now, expected) => {
    expect(slackSignature(SECRET).verify(headers(signature, timestamp), Buffer.from(BODY), ms(now))).toEqual(expected);
    // The same with the secret as a key made beforehand.
    expect(slackSignature(createSecretKey(Buffer.from(SECRET))).verify(headers(signature, timestamp), Buffer.from(BODY), ms(now))).toEqual(expected);
  });

  it('signs the raw bytes, not a re-encoded string', () => {
    const raw = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]);
    const signature = `v0=${createHmac('sha256', SECRET).update(`v0:${TIMESTAMP}:`).update(raw).digest('hex')}`;
    expect(slackSignature(SECRET).verify(headers(signature, String(TIMESTAMP)), raw, ms(TIMESTAMP))).toEqual({ ok: true });
  });
});

describe('slackSignature: refuse (checked before the body is read)', () => {
  it.each([
    ['well-formed and fresh: only the body can tell', SIGNATURE, String(TIMESTAMP), TIMESTAMP, undefined],
    ['five minutes old exactly', SIGNATURE, String(TIMESTAMP), TIMESTAMP + 300, undefined],
    ['no signature', undefined, String(TIMESTAMP), TIMESTAMP, 'missing'],
    ['an empty signature', '', String(TIMESTAMP), TIMESTAMP, 'missing'],
    ['no timestamp', SIGNATURE, undefined, TIMESTAMP, 'missing'],
    ['a timestamp that is not a number', SIGNATURE, '1e9', TIMESTAMP, 'missing'],
    ['older than five minutes', SIGNATURE, String(TIMESTAMP), TIMESTAMP + 301, 'stale'],
    ['from the future', SIGNATURE, String(TIMESTAMP), TIMESTAMP - 301, 'stale'],
    ['a signature too short', 'v0=abc', String(TIMESTAMP), TIMESTAMP, 'mismatch'],
    ['another scheme', `v1=${SIGNATURE.slice(3)}`, String(TIMESTAMP), TIMESTAMP, 'mismatch'],
    ['upper-case hex (Slack sends lower case)', SIGNATURE.toUpperCase().replace('V0=', 'v0='), String(TIMESTAMP), TIMESTAMP, 'mismatch'],
  ])('%s → %s', (_what, signature, timestamp, now, expected) => {
    expect(slackSignature(SECRET).refuse(headers(signature, timestamp), ms(now))).toBe(expected);
  });
});
