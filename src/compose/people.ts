/**
 * People's personal API keys in the composition root: the key box from AGENT_BRIDGE_SECRET,
 * and a run API client per key for the check made before a key is stored.
 */
import { AgentApiClient } from '../agent-api/index.js';
import type { AppConfig } from '../config/types.js';
import type { Clock } from '../core/ports/clock.js';
import type { PersonIdentity } from '../core/ports/identity.js';
import type { Logger } from '../core/ports/logger.js';
import type { PersonKeyRepository, Store } from '../core/ports/store.js';
import { LinkedIdentity } from '../people/identity.js';
import { checkKey, type KeyCheck, type RunsForKey } from '../people/key-check.js';
import { KeyBox } from '../people/key-box.js';
import { checkStoredKeys, PersonKeys } from '../people/person-keys.js';
import { openStore } from '../store/open-store.js';
import { PERSON_IDS } from '../surface-list.js';
import type { PersonIds } from '../surface-kit/person-ids.js';
import type { PeopleDirectory } from '../surface-kit/started-surface.js';

/** A client under `apiKey` on the run API at `baseUrl` (the configured one, or the built-in emulator's). */
export function runsForKey(baseUrl: string): RunsForKey {
  return (apiKey) => {
    const client = new AgentApiClient({ baseUrl, apiKey, timeoutMs: 10_000, retry: { maxRetries: 0 } });
    return { runs: client, close: () => client.close() };
  };
}

/**
 * What the console needs to connect keys, or undefined when AGENT_BRIDGE_SECRET is not set. Keys are
 * checked with `runsFor` (the composition root passes the run API in use, the built-in emulator's
 * included); without it, against AGENT_API_BASE_URL, and with neither every check is `unavailable`.
 */
export function consoleKeys(
  config: AppConfig,
  repository: PersonKeyRepository,
  runsFor: RunsForKey | undefined,
): { people: PersonKeys; check(apiKey: string): Promise<KeyCheck> } | undefined {
  const secret = config.people.secret;
  if (secret === undefined) return undefined;
  const factory = runsFor ?? (config.agentApi.baseUrl ? runsForKey(config.agentApi.baseUrl) : undefined);
  return {
    people: new PersonKeys(repository, new KeyBox(secret)),
    check: (apiKey) => (factory ? checkKey(factory, apiKey) : Promise.resolve('unavailable')),
  };
}

/**
 * At start: opens the database once to prove the stored personal keys open with AGENT_BRIDGE_SECRET.
 * Throws `StartupError` naming the variable (exit 2) when the secret is missing or wrong.
 */
export async function checkPeopleSecret(config: AppConfig): Promise<void> {
  const store = await openStore(config.database);
  try {
    await checkStoredKeys(store.personKeys, config.people.secret);
  } finally {
    await store.close();
  }
}

/**
 * Who each request belongs to: users of the chat surfaces are themselves (their person ids); users of
 * other surfaces through a console link, or by the same email when their surface gives a verified one
 * (`emailOf`, by surface name) and a chat surface that is on knows it (`people`, by surface name, asked
 * in the list's order). Pass it to whatever picks a run's key; it is called in the intake worker.
 */
export function personIdentity(
  store: Pick<Store, 'personLinks'>,
  directory: {
    people: Readonly<Record<string, Pick<PeopleDirectory, 'userByEmail'>>>;
    emailOf: Readonly<Record<string, (userId: string) => Promise<string | undefined>>>;
  },
  clock: Pick<Clock, 'now'>,
  logger: Logger,
  personIds: PersonIds = PERSON_IDS,
): PersonIdentity {
  const peopleByEmail = Object.entries(directory.people).map(([surface, people]) => ({ surface, userByEmail: (email: string) => people.userByEmail(email) }));
  return new LinkedIdentity({
    people: personIds,
    links: store.personLinks,
    directory: { emailOf: directory.emailOf, peopleByEmail },
    clock,
    logger: logger.child({ component: 'people' }),
  });
}

/** Tells a person their key was removed, on their own chat surface (when it is on and can); a person of no surface that is on is told nothing. */
export function keyRemovedNotice(
  people: Readonly<Record<string, Pick<PeopleDirectory, 'keyRemoved'>>>,
  personIds: Pick<PersonIds, 'parse'> = PERSON_IDS,
): (personId: string) => Promise<void> {
  return async (personId) => {
    const parsed = personIds.parse(personId);
    if (parsed) await people[parsed.surface]?.keyRemoved(parsed.userId);
  };
}
