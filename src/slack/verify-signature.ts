import type { KeyObject } from 'node:crypto';
import { hmacOverTimestampedBody } from '../http/verify-hmac.js';
import type { BodyVerifier } from '../http/webhook-verifier.js';

/** Slack refuses requests older than five minutes; so do we (replays). */
export const MAX_AGE_SECONDS = 5 * 60;

/** `v0=` and 64 hex digits in lower case, as Slack sends them. */
const SIGNATURE = /^v0=([0-9a-f]{64})$/;

/**
 * The verifier of `POST /slack/events`: `x-slack-signature` = `v0=` + hex HMAC-SHA256(secret,
 * `v0:<timestamp>:<raw body>`) over the exact bytes received, and `x-slack-request-timestamp` within
 * five minutes of now. Missing headers, a stale timestamp and a signature that cannot be one are
 * refused before a byte of the body is read. The secret is made a key once, here: from a string,
 * node prepares a key for every HMAC.
 */
export function slackSignature(secret: string | KeyObject): BodyVerifier {
  return hmacOverTimestampedBody({
    secret,
    header: 'x-slack-signature',
    timestampHeader: 'x-slack-request-timestamp',
    pattern: SIGNATURE,
    prefix: (timestamp) => `v0:${timestamp}:`,
    windowSeconds: MAX_AGE_SECONDS,
  });
}
