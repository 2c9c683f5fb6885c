/**
 * A function that replaces every given secret value in a text with `[redacted]`: for the last line of
 * defence wherever text from outside (a platform's error string, a library's log line) may quote a
 * secret back. Values shorter than 6 characters are ignored (a 1-char test key would scrub unrelated text).
 */
export function secretScrubber(values: ReadonlyArray<string | undefined>): (text: string) => string {
  const secrets = values.filter((value): value is string => typeof value === 'string' && value.length >= 6);
  if (secrets.length === 0) return (text) => text;
  const pattern = new RegExp(secrets.map((secret) => secret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
  return (text) => text.replace(pattern, '[redacted]');
}

// Local part as mail allows it unquoted but for `=` and `&`, which end a URL-encoded field's name
// (at most 64 characters, which also keeps the search's cost in proportion to the text); `@` (or `%40`); a dotted domain.
const EMAIL_ADDRESS = /[A-Za-z0-9!#$%'*+/?^_`{|}~.-]{1,64}(?:@|%40)[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+/g;

/**
 * Replaces every email address in a text with `[email]`: for text from outside that may hold people's
 * addresses (a platform API body logged at debug) on its way into a log line (docs/people.md).
 */
export function redactEmailAddresses(text: string): string {
  return text.includes('@') || text.includes('%40') ? text.replace(EMAIL_ADDRESS, '[email]') : text;
}
