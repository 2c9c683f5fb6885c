/**
 * The earlier comments a start or follow-up carries from an issue tracker or a code host (each
 * surface's `context` setting): the latest ones within both bounds.
 */

/** How many comments, and how many characters of them in all. */
export interface CommentLimits {
  messages: number;
  characters: number;
}

/** The bounds when the config file sets none: 20 comments, 8,000 characters. */
export const DEFAULT_COMMENT_LIMITS: CommentLimits = { messages: 20, characters: 8_000 };

/** How many of an issue's latest comments to read for `limits`: room for ours between the people's. */
export function commentsToRead(limits: CommentLimits): number {
  return Math.min(100, Math.max(10, limits.messages * 2));
}

/** The latest comments within both bounds (a comment over the remaining characters ends the choice), oldest first. */
export function latestWithin<T extends { body: string }>(comments: readonly T[], limits: CommentLimits): T[] {
  const chosen: T[] = [];
  if (limits.messages === 0) return chosen;
  let budget = limits.characters;
  for (const comment of comments.slice(-limits.messages).reverse()) {
    if (comment.body.length > budget) break;
    budget -= comment.body.length;
    chosen.unshift(comment);
  }
  return chosen;
}
