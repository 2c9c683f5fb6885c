import { createHmac, timingSafeEqual } from 'node:crypto';

/** Slack refuses requests older than five minutes; so do we (replays). */
export const MAX_AGE_SECONDS = 5 * 60;

export type SignatureCheck = { ok: true } | { ok: false; reason: 'missing' | 'stale' | 'mismatch' };

/**
 * Verifies `x-slack-signature` = `v0=` + hex HMAC-SHA256(secret, `v0:<timestamp>:<raw body>`) over the
 * exact bytes received, and that `x-slack-request-timestamp` is within five minutes of `nowSeconds`.
 */
export function verifySlackSignature(
  secret: string,
  headers: { signature: string | undefined; timestamp: string | undefined },
  rawBody: Buffer,
  nowSeconds: number,
): SignatureCheck {
  const { signature, timestamp } = headers;
  if (!signature || !timestamp || !/^\d+$/.test(timestamp)) return { ok: false, reason: 'missing' };
  if (Math.abs(nowSeconds - Number(timestamp)) > MAX_AGE_SECONDS) return { ok: false, reason: 'stale' };
  const expected = Buffer.from(
    `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:`).update(rawBody).digest('hex')}`,
  );
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected) ? { ok: true } : { ok: false, reason: 'mismatch' };
}
