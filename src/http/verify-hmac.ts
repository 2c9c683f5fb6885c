import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { headerValue, timestampProblem, type BodyVerifier, type SignatureProblem, type Verdict } from './webhook-verifier.js';

export interface HmacOverBodyOptions {
  /** The shared secret; a string is made a key once (from a string, node prepares a key for every HMAC). */
  secret: string | KeyObject;
  /** The header carrying the signature, as refusals name it. */
  header: string;
  /** What the whole header must look like, the hex HMAC-SHA256 in its first group (`/^sha256=([0-9a-f]{64})$/i`). */
  pattern: RegExp;
}

export interface HmacOverTimestampedBodyOptions extends HmacOverBodyOptions {
  /** The header carrying the time of sending, in whole seconds since the epoch. */
  timestampHeader: string;
  /** What is signed before the body, made of that timestamp (`v0:<timestamp>:`). */
  prefix: (timestamp: string) => string;
  /** How far from now the timestamp may be, either way, before the request is taken for a replay. */
  windowSeconds: number;
}

const keyOf = (secret: string | KeyObject): KeyObject => (typeof secret === 'string' ? createSecretKey(Buffer.from(secret, 'utf8')) : secret);

/** The hex digest the header gives, if it is shaped as `pattern` says. */
function givenDigest(headers: IncomingHttpHeaders, options: HmacOverBodyOptions): Buffer | undefined {
  const hex = options.pattern.exec(headerValue(headers, options.header)?.trim() ?? '')?.[1];
  return hex === undefined ? undefined : Buffer.from(hex, 'hex');
}

/** Compares in constant time; an empty secret signs nothing, whatever was sent. */
function matches(key: KeyObject, given: Buffer | undefined, parts: Array<string | Buffer>): Verdict {
  if (!given || key.symmetricKeySize === 0) return { ok: false, problem: 'mismatch' };
  const hmac = createHmac('sha256', key);
  for (const part of parts) hmac.update(part);
  const expected = hmac.digest();
  return given.length === expected.length && timingSafeEqual(given, expected) ? { ok: true } : { ok: false, problem: 'mismatch' };
}

/**
 * A signature in one header: HMAC-SHA256(secret, raw body) in hex, over the exact bytes received
 * (never a re-decoded string). A missing header, or one not shaped as `pattern`, is refused before
 * the body is read.
 */
export function hmacOverBody(options: HmacOverBodyOptions): BodyVerifier {
  const key = keyOf(options.secret);
  return {
    credential: options.header,
    refuse: (headers) => {
      if (!headerValue(headers, options.header)?.trim()) return 'missing';
      return givenDigest(headers, options) ? undefined : 'mismatch';
    },
    verify: (headers, body) => matches(key, givenDigest(headers, options), [body]),
  };
}

/**
 * A signature over a prefix made of the time of sending, then the raw body, with that time within a
 * window of now: missing headers, a timestamp that is not whole seconds, one outside the window or a
 * signature that cannot be one are refused before the body is read.
 */
export function hmacOverTimestampedBody(options: HmacOverTimestampedBodyOptions): BodyVerifier {
  const key = keyOf(options.secret);
  const refuse = (headers: IncomingHttpHeaders, nowMs: number): SignatureProblem | undefined => {
    if (!headerValue(headers, options.header)) return 'missing';
    const time = timestampProblem(headerValue(headers, options.timestampHeader), nowMs, options.windowSeconds);
    if (time) return time;
    return givenDigest(headers, options) ? undefined : 'mismatch';
  };
  return {
    credential: options.header,
    refuse,
    verify: (headers, body, nowMs) => {
      const problem = refuse(headers, nowMs);
      if (problem) return { ok: false, problem };
      const timestamp = headerValue(headers, options.timestampHeader) ?? '';
      return matches(key, givenDigest(headers, options), [options.prefix(timestamp), body]);
    },
  };
}
