import type { KeyObject } from 'node:crypto';
import { hmacOverBody } from '../http/verify-hmac.js';
import type { BodyVerifier } from '../http/webhook-verifier.js';

/** Linear refuses deliveries whose `webhookTimestamp` is more than a minute from now; so do we (replays). */
export const WEBHOOK_WINDOW_MS = 60_000;

/** 64 hex digits, in either case, nothing before them. */
const HEX_SHA256 = /^([0-9a-f]{64})$/i;

/**
 * The verifier of `POST /linear/webhook`: `linear-signature` is the hex HMAC-SHA256(secret, raw body)
 * over the exact bytes received (never a re-encoded string), compared in constant time. A missing or
 * malformed header is refused before a byte of the body is read; the delivery's time is inside the
 * body (`checkWebhookTimestamp`, once it is parsed).
 */
export function linearSignature(secret: string | KeyObject): BodyVerifier {
  return hmacOverBody({ secret, header: 'linear-signature', pattern: HEX_SHA256 });
}

/**
 * Whether `linear-signature` is the signature of `rawBody` (for a receiver of Linear's deliveries
 * outside the service's route). A missing, malformed or wrong signature is `false`.
 */
export function verifyLinearSignature(secret: string, signatureHeader: string | undefined, rawBody: Buffer): boolean {
  const headers = signatureHeader === undefined ? {} : { 'linear-signature': signatureHeader };
  return linearSignature(secret).verify(headers, rawBody, Date.now()).ok;
}

/**
 * Checks the body's `webhookTimestamp` (milliseconds) against `nowMs`: within `windowMs` either way is
 * `ok`; absent or not a finite number is `missing`; further off is `stale` (a replay, or a clock far off).
 */
export function checkWebhookTimestamp(webhookTimestampMs: unknown, nowMs: number, windowMs = WEBHOOK_WINDOW_MS): 'ok' | 'missing' | 'stale' {
  if (typeof webhookTimestampMs !== 'number' || !Number.isFinite(webhookTimestampMs)) return 'missing';
  return Math.abs(nowMs - webhookTimestampMs) > windowMs ? 'stale' : 'ok';
}
