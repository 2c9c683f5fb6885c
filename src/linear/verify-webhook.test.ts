import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { linearDelivery, issueCreated } from '../../test/fixtures/linear/index.js';
import { checkWebhookTimestamp, linearSignature, verifyLinearSignature } from './verify-webhook.js';

const SECRET = 'lin_wh_0123456789abcdef';
const BODY = Buffer.from('{"action":"create","type":"Issue","data":{"id":"1"},"webhookTimestamp":1700000000000}');
const SIGNATURE = createHmac('sha256', SECRET).update(BODY).digest('hex');
/** Whether the header alone already condemns the delivery, before the body is read. */
const linearSignatureHeaderMalformed = (header: string | undefined) =>
  linearSignature(SECRET).refuse(header === undefined ? {} : { 'linear-signature': header }, Date.now()) !== undefined;

describe('verifyLinearSignature', () => {
  it.each<[string, string | undefined, boolean]>([
    ['the right signature', SIGNATURE, true],
    ['the right signature in upper case', SIGNATURE.toUpperCase(), true],
    ['the right signature with surrounding space', ` ${SIGNATURE} `, true],
    ['one changed digit', `${SIGNATURE.slice(0, -1)}${SIGNATURE.endsWith('0') ? '1' : '0'}`, false],
    ['a short signature', SIGNATURE.slice(0, 10), false],
    ['a longer signature', `${SIGNATURE}00`, false],
    ['not hex', 'z'.repeat(64), false],
    ['the Slack style prefix', `v0=${SIGNATURE}`, false],
    ['sha256= prefix', `sha256=${SIGNATURE}`, false],
    ['empty', '', false],
    ['missing', undefined, false],
  ])('%s → %s', (_what, header, expected) => {
    expect(verifyLinearSignature(SECRET, header, BODY)).toBe(expected);
  });

  it('is false for another secret', () => {
    expect(verifyLinearSignature('another-secret', SIGNATURE, BODY)).toBe(false);
  });

  it('is false with an empty secret, whatever the header', () => {
    const unsigned = createHmac('sha256', '').update(BODY).digest('hex');
    expect(verifyLinearSignature('', unsigned, BODY)).toBe(false);
  });

  it('signs the raw bytes, not a re-encoded string', () => {
    const raw = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]);
    const signature = createHmac('sha256', SECRET).update(raw).digest('hex');
    expect(verifyLinearSignature(SECRET, signature, raw)).toBe(true);
    expect(verifyLinearSignature(SECRET, signature, Buffer.from(raw.toString('utf8')))).toBe(false);
  });

  it('accepts a fixture delivery and rejects it once the body changes', () => {
    const delivery = linearDelivery(SECRET, issueCreated());
    expect(verifyLinearSignature(SECRET, delivery.headers['linear-signature'], Buffer.from(delivery.body))).toBe(true);
    expect(verifyLinearSignature(SECRET, delivery.headers['linear-signature'], Buffer.from(`${delivery.body} `))).toBe(false);
  });
});

describe('linearSignatureHeaderMalformed (checked before the body is read)', () => {
  it.each<[string, string | undefined, boolean]>([
    ['64 hex digits: only the body can tell', SIGNATURE, false],
    ['upper case, surrounding space', ` ${SIGNATURE.toUpperCase()} `, false],
    ['missing', undefined, true],
    ['empty', '', true],
    ['too short', SIGNATURE.slice(0, 10), true],
    ['a prefix', `sha256=${SIGNATURE}`, true],
    ['not hex', 'z'.repeat(64), true],
  ])('%s → %s', (_what, header, expected) => {
    expect(linearSignatureHeaderMalformed(header)).toBe(expected);
  });
});

describe('checkWebhookTimestamp', () => {
  const NOW = 1_772_441_700_000;
  it.each<[string, unknown, number | undefined, 'ok' | 'missing' | 'stale']>([
    ['now', NOW, undefined, 'ok'],
    ['59 s old', NOW - 59_000, undefined, 'ok'],
    ['exactly 60 s old', NOW - 60_000, undefined, 'ok'],
    ['60.001 s old', NOW - 60_001, undefined, 'stale'],
    ['an hour old (a replay)', NOW - 3_600_000, undefined, 'stale'],
    ['61 s in the future', NOW + 61_000, undefined, 'stale'],
    ['in seconds instead of milliseconds', Math.floor(NOW / 1000), undefined, 'stale'],
    ['a custom window', NOW - 90_000, 120_000, 'ok'],
    ['missing', undefined, undefined, 'missing'],
    ['null', null, undefined, 'missing'],
    ['a numeric string', String(NOW), undefined, 'missing'],
    ['NaN', Number.NaN, undefined, 'missing'],
    ['Infinity', Number.POSITIVE_INFINITY, undefined, 'missing'],
  ])('%s → %s', (_what, timestamp, windowMs, expected) => {
    expect(checkWebhookTimestamp(timestamp, NOW, windowMs)).toBe(expected);
  });
});
