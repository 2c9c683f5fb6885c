import type { KeyObject } from 'node:crypto';
import { hmacOverBody } from '../http/verify-hmac.js';
import type { BodyVerifier } from '../http/webhook-verifier.js';

/** `sha256=` and 64 hex digits, in either case. */
const SIGNATURE = /^sha256=([0-9a-f]{64})$/i;

/**
 * The verifier of `POST /jira/webhook`: Jira's `X-Hub-Signature: sha256=<hex HMAC-SHA256(secret, raw
 * body)>` (an admin webhook with a secret; docs/jira.md), refused before a byte of the body is read
 * when missing or malformed, checked over the exact bytes received in constant time.
 */
export function jiraSignature(secret: string | KeyObject): BodyVerifier {
  return hmacOverBody({ secret, header: 'X-Hub-Signature', pattern: SIGNATURE });
}
