/**
 * The runs page's Person filter, made to take what people type: a chat requester is stored as their
 * user id (and named `<@personId>`), which nobody remembers, so the typed text is also resolved to user
 * ids — a person id of any chat surface as its surface reads one typed (Slack's in any case or as a
 * mention: `u0123abcd`, `@U0123ABCD`, `<@U0123ABCD>`), and the names the console already knows (people
 * its pages showed, see `people/display-names.ts`). The store still matches the text itself as before
 * (the id exactly, part of the stored name).
 */
import type { DisplayNames } from '../people/display-names.js';
import { PERSON_IDS } from '../surface-list.js';
import type { PersonIds } from '../surface-kit/person-ids.js';

/** Ids at most one filter resolves to: a common name must not make one huge query. */
const MAX_IDS = 100;

/** The requesters' user ids `typed` stands for (none when it names nobody the console knows). */
export function personIdsFor(
  typed: string,
  names: Pick<DisplayNames, 'idsNamed'> | undefined,
  people: Pick<PersonIds, 'read' | 'parse'> = PERSON_IDS,
): string[] {
  const ids = new Set<string>();
  const id = people.read(typed)?.userId;
  if (id) ids.add(id);
  // Names are known by person id; runs store their requester's user id on its own surface.
  for (const named of names?.idsNamed(typed, MAX_IDS) ?? []) {
    if (ids.size >= MAX_IDS) break;
    ids.add(people.parse(named)?.userId ?? named);
  }
  return [...ids];
}
