/**
 * Slack message text as the person typed it. Slack sends `&`, `<` and `>` escaped as `&amp;`,
 * `&lt;` and `&gt;`, and writes mentions, channels and links as `<…>` markup. The agent should read
 * `a < b & c`, not `a &lt; b &amp; c`, and what we post back is escaped exactly once (blocks.ts).
 */

/** One piece of markup (`<…>` without the brackets) as readable text, still entity-escaped. */
function readableMarkup(inner: string): string {
  const bar = inner.indexOf('|');
  const target = bar === -1 ? inner : inner.slice(0, bar);
  const label = bar === -1 ? undefined : inner.slice(bar + 1);
  if (target.startsWith('@')) return `@${label || target.slice(1)}`;
  if (target.startsWith('#')) return `#${label || target.slice(1)}`;
  // Special mentions (`!here`, `!subteam^S…|@team`, `!date^…|fallback`): the label is their text.
  if (target.startsWith('!')) return label || `@${target.slice(1).split('^')[0]}`;
  if (!label) return target;
  // Slack links what was typed as `example.com` as `<http://example.com|example.com>`: show it as typed.
  const bare = target.replace(/^(?:https?:\/\/|mailto:)/i, '');
  return label === target || label === bare ? label : `${label} (${target})`;
}

/**
 * Markup made readable first, then the three entities decoded in one pass. The order matters: decoding
 * first would turn an escaped `&lt;@U1&gt;` the person typed into markup, and decoding twice would
 * turn a typed `&amp;lt;` into `<`.
 */
export function plainSlackText(text: string): string {
  return text
    .replace(/<([^<>]*)>/g, (_markup, inner: string) => readableMarkup(inner))
    .replace(/&(amp|lt|gt);/g, (_entity, name: string) => (name === 'amp' ? '&' : name === 'lt' ? '<' : '>'));
}
