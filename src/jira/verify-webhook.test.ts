import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { jiraSignature } from './verify-webhook.js';

const SECRET = 'jira-webhook-secret';
const body = Buffer.from('{"webhookEvent":"jira:issue_updated"}');
const NOW = 1_772_441_700_000;
/** Whether the verifier takes `header` as the signature of `bytes`. */
const verifyJiraSignature = (secret: string, header: string | undefined, bytes: Buffer) =>
  jiraSignature(secret).verify(header === undefined ? {} : { 'x-hub-signature': header }, bytes, NOW).ok;
/** Whether the header alone already condemns the delivery, before the body is read. */
const jiraSignatureHeaderMalformed = (header: string | undefined) =>
  jiraSignature(SECRET).refuse(header === undefined ? {} : { 'x-hub-signature': header }, NOW) !== undefined;
const signed = (bytes: Buffer, secret = SECRET) => `sha256=${createHmac('sha256', secret).update(bytes).digest('hex')}`;

describe('X-Hub-Signature', () => {
  it('accepts the HMAC of the exact bytes, in either case of hex and prefix', () => {
    expect(verifyJiraSignature(SECRET, signed(body), body)).toBe(true);
    expect(verifyJiraSignature(SECRET, signed(body).toUpperCase().replace('SHA256=', 'sha256='), body)).toBe(true);
  });

  it.each([
    ['another secret', signed(body, 'other')],
    ['another body', signed(Buffer.from('{}'))],
    ['no prefix', signed(body).slice('sha256='.length)],
    ['sha1', signed(body).replace('sha256=', 'sha1=')],
    ['too short', signed(body).slice(0, -2)],
    ['missing', undefined],
    ['empty', ''],
  ])('refuses %s', (_what, header) => {
    expect(verifyJiraSignature(SECRET, header, body)).toBe(false);
  });

  it('refuses everything with an empty secret', () => {
    expect(verifyJiraSignature('', signed(body, ''), body)).toBe(false);
  });

  it('condemns a malformed header before the body is read', () => {
    expect(jiraSignatureHeaderMalformed(undefined)).toBe(true);
    expect(jiraSignatureHeaderMalformed('sha256=xyz')).toBe(true);
    expect(jiraSignatureHeaderMalformed(signed(body))).toBe(false);
  });
});
