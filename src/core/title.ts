import { withoutRequestOptions } from './request-options.js';

/** Longest title in characters (docs/architecture.md §6); longer ones become 79 characters and `…`. */
export const TITLE_LIMIT = 80;

/** Cuts a title to the limit of docs/architecture.md §6. */
export function limitTitle(title: string): string {
  const characters = [...title];
  return characters.length <= TITLE_LIMIT ? title : `${characters.slice(0, TITLE_LIMIT - 1).join('')}…`;
}

/**
 * The request's first non-empty line, trimmed and limited; `fallback` when there is none. Options at
 * its start (`[env=… model=…]`) are not part of the title.
 */
export function titleFrom(text: string, fallback = 'Agent run'): string {
  const line = withoutRequestOptions(text)
    .split(/\r?\n/)
    .map((candidate) => candidate.trim())
    .find((candidate) => candidate !== '');
  return limitTitle(line ?? fallback);
}
