/**
 * A Teams message's text as people meant it: the bot's own mention (`<at>agent-bridge</at>`) removed,
 * other people's mentions as `@Name`, and the few HTML entities Teams writes in plain text decoded.
 */

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&nbsp;': ' ' };

/** The text with the mentions of `botNames` removed and every other `<at>X</at>` written `@X`. */
export function messageText(text: string, botNames: readonly string[]): string {
  const withoutBot = text.replace(/<at>([^<]{0,200})<\/at>/g, (_, name: string) => (botNames.includes(name.trim()) ? ' ' : `@${name}`));
  return withoutBot
    .replace(/<\/?(?:p|div|span|br)\s*\/?>/gi, ' ')
    .replace(/&(?:amp|lt|gt|quot|#39|nbsp);/g, (entity) => ENTITIES[entity] ?? entity)
    .replace(/[ \t]+/g, ' ')
    .trim();
}
