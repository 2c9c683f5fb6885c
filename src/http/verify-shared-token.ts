import { createHash, timingSafeEqual } from 'node:crypto';
import { headerValue, type WebhookVerifier } from './webhook-verifier.js';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * A secret sent back as it is in a header (a webhook's "secret token"): nothing covers the body, so
 * the whole check is made on the headers, before a byte of the body is read. Compared in constant
 * time over digests of equal length, so neither the token's characters nor its length show in the
 * time taken. An empty configured token admits nobody.
 */
export function sharedToken(options: { header: string; token: string }): WebhookVerifier {
  const expected = options.token === '' ? undefined : digest(options.token);
  return {
    credential: options.header,
    refuse: (headers) => {
      const given = headerValue(headers, options.header);
      if (!given) return 'missing';
      return expected && timingSafeEqual(digest(given), expected) ? undefined : 'mismatch';
    },
  };
}
