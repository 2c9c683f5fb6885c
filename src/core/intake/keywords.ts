/** What a request addressed to the bot asks for, by its first word (docs/architecture.md §6). */
export type Intent = { kind: 'stop' } | { kind: 'new'; text: string } | { kind: 'request'; text: string };

/**
 * Keywords (`stop`, `cancel`, `new`) count only as the first word after the mention or handle,
 * case-insensitive, trailing punctuation ignored; anything else is a request.
 */
export function intentOf(text: string): Intent {
  const match = /^\s*(\S+)(?:\s+([\s\S]*))?$/.exec(text);
  const word = match?.[1]?.toLowerCase().replace(/[.!:,;]+$/, '');
  if (word === 'stop' || word === 'cancel') return { kind: 'stop' };
  if (word === 'new') return { kind: 'new', text: (match?.[2] ?? '').trim() };
  return { kind: 'request', text: text.trim() };
}
