import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { headerValue, timestampProblem, type BodyVerifier, type SignatureProblem } from './webhook-verifier.js';

/** The Standard Webhooks default tolerance: five minutes either way. */
export const STANDARD_WEBHOOKS_WINDOW_SECONDS = 5 * 60;

const SECRET = /^whsec_([A-Za-z0-9+/]+={0,2})$/;
/** One entry of `webhook-signature`: version 1, a base64 HMAC-SHA256 (32 bytes). */
const V1_ENTRY = /^v1,([A-Za-z0-9+/]{43}=)$/;

/**
 * The HMAC key of a `whsec_<base64>` signing secret. Throws when the secret is not one, so that a
 * configuration names the mistake at start rather than refusing every delivery.
 */
export function standardWebhooksKey(secret: string): KeyObject {
  const base64 = SECRET.exec(secret)?.[1];
  const key = base64 === undefined ? Buffer.alloc(0) : Buffer.from(base64, 'base64');
  if (key.length === 0) throw new Error('a Standard Webhooks signing secret is whsec_ followed by base64');
  return createSecretKey(key);
}

/** The v1 signatures a `webhook-signature` header lists (space-separated; other versions are skipped). */
function v1Signatures(headers: IncomingHttpHeaders): Buffer[] {
  const entries = headerValue(headers, 'webhook-signature')?.trim().split(/ +/) ?? [];
  return entries.flatMap((entry) => {
    const base64 = V1_ENTRY.exec(entry)?.[1];
    return base64 === undefined ? [] : [Buffer.from(base64, 'base64')];
  });
}

/**
 * Standard Webhooks (standardwebhooks.com): `webhook-id`, `webhook-timestamp` (seconds) and
 * `webhook-signature` — one or more `v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<raw body>")>`,
 * the key being the base64 part of a `whsec_` secret. Missing headers, a timestamp outside the window
 * and a header without a v1 signature are refused before the body is read; the body is checked
 * against every v1 signature listed (a secret being rotated signs with both), in constant time.
 */
export function standardWebhooks(options: { secret: string; windowSeconds?: number }): BodyVerifier {
  const key = standardWebhooksKey(options.secret);
  const windowSeconds = options.windowSeconds ?? STANDARD_WEBHOOKS_WINDOW_SECONDS;
  const refuse = (headers: IncomingHttpHeaders, nowMs: number): SignatureProblem | undefined => {
    if (!headerValue(headers, 'webhook-id') || !headerValue(headers, 'webhook-signature')) return 'missing';
    const time = timestampProblem(headerValue(headers, 'webhook-timestamp'), nowMs, windowSeconds);
    if (time) return time;
    return v1Signatures(headers).length > 0 ? undefined : 'mismatch';
  };
  return {
    credential: 'webhook-signature',
    refuse,
    verify: (headers, body, nowMs) => {
      const problem = refuse(headers, nowMs);
      if (problem) return { ok: false, problem };
      const signed = `${headerValue(headers, 'webhook-id') ?? ''}.${headerValue(headers, 'webhook-timestamp') ?? ''}.`;
      const expected = createHmac('sha256', key).update(signed).update(body).digest();
      // Every entry is compared, a match or not, so the time taken does not say which one matched.
      const found = v1Signatures(headers).reduce((any, given) => timingSafeEqual(given, expected) || any, false);
      return found ? { ok: true } : { ok: false, problem: 'mismatch' };
    },
  };
}
