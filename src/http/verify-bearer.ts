import { headerValue, type Verdict, type WebhookVerifier } from './webhook-verifier.js';

/** A JWT as a bearer token: three base64url parts, bounded so that checking its shape costs nothing. */
const BEARER_JWT = /^Bearer ([A-Za-z0-9_-]{1,4096}\.[A-Za-z0-9_-]{1,8192}\.[A-Za-z0-9_-]{0,4096})$/i;

/**
 * Checks a bearer token: its signature by a key the surface trusts, issuer, audience, expiry. The
 * claims it answers reach the surface's parse and handle (to compare with what the body says). It must
 * call nothing upstream for a request: signing keys come from a cache the surface fills and renews on
 * its own schedule, and a key id it does not hold is a `mismatch`, never a fetch. It answers a
 * refusal rather than throwing for a bad token: what it throws is ours (a 500, logged as an error).
 */
export type BearerCheck = (token: string, nowMs: number) => Promise<Verdict>;

/**
 * `Authorization: Bearer <JWT>`: a header that is not one is refused on its shape, and the token is
 * checked by `check` before a byte of the body is read — the token does not cover the body.
 */
export function bearerToken(options: { check: BearerCheck; header?: string }): WebhookVerifier {
  const header = options.header ?? 'Authorization';
  const token = (value: string | undefined) => BEARER_JWT.exec(value?.trim() ?? '')?.[1];
  return {
    credential: header,
    refuse: (headers) => {
      const value = headerValue(headers, header);
      if (!value) return 'missing';
      return token(value) === undefined ? 'mismatch' : undefined;
    },
    admit: async (headers, nowMs) => {
      const given = token(headerValue(headers, header));
      return given === undefined ? { ok: false, problem: 'missing' } : options.check(given, nowMs);
    },
  };
}
