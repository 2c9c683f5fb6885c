import { createHmac, timingSafeEqual } from 'node:crypto';

const SIGNATURE = /^sha256=([0-9a-f]{64})$/i;

/**
 * Whether the `X-Hub-Signature` header alone already condemns a delivery (missing, or not
 * `sha256=` and 64 hex digits), before a byte of the body is read.
 */
export function jiraSignatureHeaderMalformed(signatureHeader: string | undefined): boolean {
  return !SIGNATURE.test(signatureHeader?.trim() ?? '');
}

/**
 * Verifies Jira's `X-Hub-Signature: sha256=<hex HMAC-SHA256(secret, raw body)>` over the exact bytes
 * received, in constant time (an admin webhook with a secret; docs/jira.md). A
 * missing, malformed or wrong signature is `false`; nothing of the secret or the expected value leaves.
 */
export function verifyJiraSignature(secret: string, signatureHeader: string | undefined, rawBody: Buffer): boolean {
  const given = SIGNATURE.exec(signatureHeader?.trim() ?? '')?.[1];
  if (!secret || !given) return false;
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  return timingSafeEqual(Buffer.from(given, 'hex'), expected);
}
