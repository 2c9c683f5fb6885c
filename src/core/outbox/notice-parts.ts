/**
 * A notice's words and links (the `parts` of an `OutboxMessage` of kind `notice`): built by whoever
 * owes the notice from the links it holds, read back defensively from a stored row, and written in
 * plain words where no link can be shown (the log, the notice's `text`).
 */
import type { MessageLink, NoticePart, OutboxMessage } from '../ports/messages.js';

export type Notice = Extract<OutboxMessage, { kind: 'notice' }>;

/** At most this many parts are read from a stored row: a notice is a sentence or two. */
const MAX_PARTS = 50;

/** A link in plain words: its label with the URL beside it, or the URL alone. */
export function plainLink(link: MessageLink): string {
  return link.label !== undefined && link.label !== '' && link.label !== link.url ? `${link.label} (${link.url})` : link.url;
}

/** Words and links in plain words. */
export function plainParts(parts: readonly NoticePart[]): string {
  return parts.map((part) => (typeof part === 'string' ? part : plainLink(part))).join('');
}

/**
 * A notice of these words and links: `parts` for the notifiers, `text` their plain form (what the
 * log writes, and what a version that reads no `parts` shows). Without a link it is text alone, as
 * every notice was before links.
 */
export function noticeOf(parts: readonly NoticePart[], extra: Omit<Notice, 'kind' | 'text' | 'parts'> = {}): Notice {
  const text = plainParts(parts);
  const linked = parts.some((part) => typeof part !== 'string');
  return { kind: 'notice', text, ...(linked && { parts: [...parts] }), ...extra };
}

const isLink = (part: unknown): part is MessageLink => {
  if (typeof part !== 'object' || part === null) return false;
  const { url, label } = part as { url?: unknown; label?: unknown };
  return typeof url === 'string' && (label === undefined || typeof label === 'string');
};

/**
 * The notice's words and links: its stored `parts` when they are well formed, else its `text` as
 * words alone — a row written before links existed, or one whose parts this version cannot read.
 */
export function partsOf(notice: Notice): NoticePart[] {
  const parts: unknown = notice.parts;
  if (!Array.isArray(parts) || parts.length === 0 || parts.length > MAX_PARTS) return [notice.text];
  const valid = parts.every((part) => typeof part === 'string' || isLink(part));
  return valid
    ? parts.map((part: NoticePart) => (typeof part === 'string' ? part : { url: part.url, ...(part.label !== undefined && { label: part.label }) }))
    : [notice.text];
}

/** The notice with `map` applied to its words (never to a link's URL), in `text` and `parts` alike. */
export function mapNoticeWords(notice: Notice, map: (words: string) => string): Notice {
  const parts = notice.parts === undefined ? undefined : partsOf(notice).map((part) => (typeof part === 'string' ? map(part) : part));
  return { ...notice, text: map(notice.text), ...(parts !== undefined && { parts }) };
}
