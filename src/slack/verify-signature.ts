import { createHmac, timingSafeEqual, type KeyObject } from 'node:crypto';

/** Slack refuses requests older than five minutes; so do we (replays). */
export const MAX_AGE_SECONDS = 5 * 60;

export type SignatureCheck = { ok: true } | { ok: false; reason: 'missing' | 'stale' | 'mismatch' };

const SIGNATURE = /^v0=[0-9a-f]{64}$/;

/**
 * What the signature headers alone already condemn, before a byte of the body is read: missing
 * headers, a timestamp outside five minutes of `nowSeconds`, or a signature that cannot be one
 * (`mismatch`, as it would be after reading). Undefined when only the body can tell.
 */
export function slackHeadersProblem(
  headers: { signature: string | undefined; timestamp: string | undefined },
  nowSeconds: number,
): 'missing' | 'stale' | 'mismatch' | undefined {
  const { signature, timestamp } = headers;
  if (!signature || !timestamp || !/^\d+$/.test(timestamp)) return 'missing';
  if (Math.abs(nowSeconds - Number(timestamp)) > MAX_AGE_SECONDS) return 'stale';
  return SIGNATURE.test(signature) ? undefined : 'mismatch';
}

/**
 * Verifies `x-slack-signature` = `v0=` + hex HMAC-SHA256(secret, `v0:<timestamp>:<raw body>`) over the
 * exact bytes received, and that `x-slack-request-timestamp` is within five minutes of `nowSeconds`.
 * A route checking every request gives the secret as a `KeyObject` made once (`createSecretKey`): from
 * a string, node prepares a key for every HMAC.
 */
export function verifySlackSignature(
  secret: string | KeyObject,
  headers: { signature: string | undefined; timestamp: string | undefined },
  rawBody: Buffer,
  nowSeconds: number,
): SignatureCheck {
  const { signature, timestamp } = headers;
  const problem = slackHeadersProblem(headers, nowSeconds);
  if (problem || !signature || !timestamp) return { ok: false, reason: problem ?? 'missing' };
  const expected = Buffer.from(`v0=${createHmac('sha256', secret).update(`v0:${timestamp}:`).update(rawBody).digest('hex')}`);
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected) ? { ok: true } : { ok: false, reason: 'mismatch' };
}
