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
