/**
 * Credentials known by their shape rather than by a configured value: a platform's app may mint them
 * while the service runs (a JWT, the installation tokens it buys), so no list of secrets holds them,
 * yet a platform (or a proxy before it) may quote them back in an error that ends up in a log line.
 * The shapes of each surface's tokens are its module's (`SurfaceModule.credentialShapes`); a JWT is no
 * one platform's.
 */

/** A JWT: base64url of a JSON header and payload (`{"` → `eyJ`), then a signature. */
const JWT = /\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g;

/** Replaces every credential-shaped run of text with `[redacted]`: a JWT, and whatever matches one of `shapes` (global expressions). */
export function redactCredentialShapes(text: string, shapes: readonly RegExp[] = []): string {
  let clean = text;
  for (const shape of [JWT, ...shapes]) clean = clean.replace(shape, '[redacted]');
  return clean;
}
