/**
 * The runs page's Person filter, made to take what people type: a Slack requester is stored as its
 * user id (and named `<@U…>`), which nobody remembers, so the typed text is also resolved to user ids —
 * a Slack user ID in any case or as a mention (`u0123abcd`, `@U0123ABCD`, `<@U0123ABCD>`), and the
 * Slack display names the console already knows (people its pages showed, see `people/display-names.ts`).
 * The store still matches the text itself as before (the id exactly, part of the stored name).
 */
import type { DisplayNames } from '../people/display-names.js';

/** A typed Slack user ID, bare or as a mention, any case. */
const TYPED_SLACK_ID = /^<?@?([UW][A-Z0-9]{2,40})(?:\|[^>]*)?>?$/i;
/** Ids at most one filter resolves to: a common name must not make one huge query. */
const MAX_IDS = 100;

/** The Slack user ids `typed` stands for (none when it names nobody the console knows). */
export function personIdsFor(typed: string, names: Pick<DisplayNames, 'idsNamed'> | undefined): string[] {
  const ids = new Set<string>();
  const id = TYPED_SLACK_ID.exec(typed.trim())?.[1];
  if (id) ids.add(id.toUpperCase());
  for (const named of names?.idsNamed(typed, MAX_IDS) ?? []) {
    if (ids.size >= MAX_IDS) break;
    ids.add(named);
  }
  return [...ids];
}
