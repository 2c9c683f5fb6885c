/**
 * GitHub's webhook signature: `X-Hub-Signature-256: sha256=<hex
 * HMAC-SHA256(secret, raw body)>`, checked by `@octokit/webhooks-methods` in constant time over the
 * exact bytes received, before anything else reads them.
 */
import { verify } from '@octokit/webhooks-methods';

const SIGNATURE = /^sha256=[0-9a-f]{64}$/i;

/**
 * Whether the header alone already condemns the delivery (missing, or not `sha256=` and 64 hex
 * digits): refused before a byte of the body is read.
 */
export function githubSignatureHeaderMalformed(signatureHeader: string | undefined): boolean {
  const given = signatureHeader?.trim();
  return !given || !SIGNATURE.test(given);
}

const utf8 = new TextDecoder('utf-8');

/**
 * Verifies `X-Hub-Signature-256` over `rawBody`. A missing, malformed or wrong signature is `false`;
 * nothing about the secret or the expected value leaves this function. The library signs text: a body
 * that is not UTF-8 decodes to other bytes, and so fails, as it should (GitHub sends JSON in UTF-8).
 */
export async function verifyGithubSignature(secret: string, signatureHeader: string | undefined, rawBody: Buffer): Promise<boolean> {
  const given = signatureHeader?.trim();
  if (!secret || !given || githubSignatureHeaderMalformed(given)) return false;
  try {
    return await verify(secret, utf8.decode(rawBody), given.toLowerCase());
  } catch {
    return false;
  }
}
