/**
 * Credentials known by their shape rather than by a configured value: the GitHub App's JWT and the
 * installation tokens it buys are minted while the service runs, so no list of secrets holds them, yet
 * a platform (or a proxy before it) may quote them back in an error that ends up in a log line.
 */

const SHAPES = [
  // A JWT: base64url of a JSON header and payload (`{"` → `eyJ`), then a signature.
  /\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g,
  // GitHub's tokens: installation (`ghs_`), personal (`ghp_`, `github_pat_`), OAuth and refresh.
  /\b(?:gh[opsur]_|github_pat_)[A-Za-z0-9_-]{16,}/g,
  // Slack's tokens (`xoxb-…`, `xoxp-…`, `xapp-…`).
  /\b(?:xox[a-z]|xapp)-[A-Za-z0-9-]{8,}/gi,
];

/** Replaces every credential-shaped run of text with `[redacted]`. */
export function redactCredentialShapes(text: string): string {
  let clean = text;
  for (const shape of SHAPES) clean = clean.replace(shape, '[redacted]');
  return clean;
}
