import type { IncomingHttpHeaders } from 'node:http';

/**
 * Why a request's credential is refused: absent (or a header it needs is), outside its time window
 * (a replay, or a clock far off), or present but not the right one — also a value that cannot be one,
 * as it would be once checked.
 */
export type SignatureProblem = 'missing' | 'stale' | 'mismatch';

/** What the verifier found; `claims` are what a token said of its sender, handed to the surface's parse and handle. */
export type Verdict = { ok: true; claims?: Readonly<Record<string, unknown>> } | { ok: false; problem: SignatureProblem };

/**
 * How one surface proves a webhook request is its platform's. The edge (`http/signed-body.ts`) asks in
 * this order and refuses at the first problem with 401 `invalid_signature`:
 *
 * 1. `refuse`, on the headers alone before a byte of the body is read (the server answers at once and
 *    closes the connection): synchronous and cheap, for what already condemns the request.
 * 2. `admit`, still before the body is read: an asynchronous check of a credential the body does not
 *    enter (a bearer token's signature).
 * 3. `verify`, over the exact bytes received, once the body is read within its limit and the shared
 *    budget: a signature over the body.
 *
 * A variant implements what its credential needs (`verify-hmac.ts`, `verify-shared-token.ts`,
 * `verify-standard-webhooks.ts`, `verify-bearer.ts`). None may call out for a request: anything an
 * anonymous caller sends must cost no upstream call, no log line above debug, no memory beyond the
 * body budget. Nothing about the secret or the expected value leaves a verifier.
 */
export interface WebhookVerifier {
  /** The header people must send, as a refusal names it (`X-Hub-Signature-256`). */
  readonly credential: string;
  refuse(headers: IncomingHttpHeaders, nowMs: number): SignatureProblem | undefined;
  admit?(headers: IncomingHttpHeaders, nowMs: number): Promise<Verdict>;
  verify?(headers: IncomingHttpHeaders, body: Buffer, nowMs: number): Verdict | Promise<Verdict>;
}

/** A verifier whose signature covers the body, checked at once (an HMAC): `verify` is always there, and synchronous. */
export interface BodyVerifier extends WebhookVerifier {
  verify(headers: IncomingHttpHeaders, body: Buffer, nowMs: number): Verdict;
}

/** A header's value as sent (the first, when a client repeated it). */
export function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Whether a timestamp header (whole seconds since the epoch) is usable and within `windowSeconds` of
 * `nowMs` either way: absent or not digits is `missing`, further off is `stale`.
 */
export function timestampProblem(seconds: string | undefined, nowMs: number, windowSeconds: number): 'missing' | 'stale' | undefined {
  if (!seconds || !/^\d+$/.test(seconds)) return 'missing';
  return Math.abs(Math.floor(nowMs / 1000) - Number(seconds)) > windowSeconds ? 'stale' : undefined;
}
