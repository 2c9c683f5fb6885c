import { createHmac, timingSafeEqual } from 'node:crypto';

/** Linear refuses deliveries whose `webhookTimestamp` is more than a minute from now; so do we (replays). */
export const WEBHOOK_WINDOW_MS = 60_000;

const HEX_SHA256 = /^[0-9a-f]{64}$/i;

/**
 * Whether the `linear-signature` header alone already condemns the delivery (missing, or not 64 hex
 * digits), before a byte of the body is read. Its timestamp is inside the body: only this can be
 * checked early.
 */
export function linearSignatureHeaderMalformed(signatureHeader: string | undefined): boolean {
  const given = signatureHeader?.trim();
  return !given || !HEX_SHA256.test(given);
}

/**
 * Verifies the `linear-signature` header: hex HMAC-SHA256(secret, raw body) over the exact bytes
 * received (never a re-encoded string), compared in constant time. A missing, malformed or wrong
 * signature is `false`; nothing about the secret or the expected value leaves this function.
 */
export function verifyLinearSignature(secret: string, signatureHeader: string | undefined, rawBody: Buffer): boolean {
  const given = signatureHeader?.trim();
  if (!secret || !given || linearSignatureHeaderMalformed(given)) return false;
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  return timingSafeEqual(Buffer.from(given, 'hex'), expected);
}

/**
 * Checks the body's `webhookTimestamp` (milliseconds) against `nowMs`: within `windowMs` either way is
 * `ok`; absent or not a finite number is `missing`; further off is `stale` (a replay, or a clock far off).
 */
export function checkWebhookTimestamp(webhookTimestampMs: unknown, nowMs: number, windowMs = WEBHOOK_WINDOW_MS): 'ok' | 'missing' | 'stale' {
  if (typeof webhookTimestampMs !== 'number' || !Number.isFinite(webhookTimestampMs)) return 'missing';
  return Math.abs(nowMs - webhookTimestampMs) > windowMs ? 'stale' : 'ok';
}
