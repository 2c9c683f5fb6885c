/**
 * GitHub's webhook signature: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256(secret, raw body)>`,
 * checked in constant time over the exact bytes received, before anything else reads them.
 */
import type { KeyObject } from 'node:crypto';
import { hmacOverBody } from '../http/verify-hmac.js';
import type { BodyVerifier } from '../http/webhook-verifier.js';

/** `sha256=` and 64 hex digits, in either case (GitHub sends lower case). */
const SIGNATURE = /^sha256=([0-9a-f]{64})$/i;

/**
 * The verifier of `POST /github/webhook`: a missing or malformed header is refused before a byte of
 * the body is read; the rest is checked over the raw bytes.
 */
export function githubSignature(secret: string | KeyObject): BodyVerifier {
  return hmacOverBody({ secret, header: 'X-Hub-Signature-256', pattern: SIGNATURE });
}
