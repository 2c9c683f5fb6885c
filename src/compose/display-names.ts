/** People's names for the console, each asked of the person's own chat surface: who each run belongs to. */
import type { Clock } from '../core/ports/clock.js';
import { CachedDisplayNames, type DisplayNames } from '../people/display-names.js';
import { PERSON_IDS } from '../surface-list.js';
import type { PersonIds } from '../surface-kit/person-ids.js';
import type { PeopleDirectory } from '../surface-kit/started-surface.js';

/**
 * Names by person id from the chat surfaces that are on (`people`, by surface name), kept an hour (a
 * miss or failure five minutes); pages never wait long for them. A person of a surface that is off has no name.
 */
export function displayNames(
  people: Readonly<Record<string, Pick<PeopleDirectory, 'displayName'>>>,
  clock: Pick<Clock, 'now'>,
  personIds: Pick<PersonIds, 'parse'> = PERSON_IDS,
): DisplayNames {
  return new CachedDisplayNames({
    isPerson: (id) => personIds.parse(id) !== undefined,
    lookup: async (personId) => {
      const parsed = personIds.parse(personId);
      const directory = parsed && people[parsed.surface];
      return directory ? directory.displayName(parsed.userId) : undefined;
    },
    clock,
  });
}
