import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Attribution } from '../config-kit/value-sets.js';
import type { AgentRuns } from '../core/ports/agent-runs.js';
import { TestClock } from '../core/ports/clock.js';
import type { PersonIdentity } from '../core/ports/identity.js';
import type { Requester } from '../core/ports/triggers.js';
import { openSqliteStore, type SqliteStore } from '../store/sqlite-store.js';
import { KeyBox } from './key-box.js';
import { keyRefusal } from './key-refusals.js';
import { PersonKeys } from './person-keys.js';
import { PersonalRunKeys } from './run-keys.js';

const SECRET = 'run-keys-test-secret-'.padEnd(40, 'x');
const box = new KeyBox(SECRET);
const ALICE = { platform: 'slack', id: 'U0ALICE' } satisfies Requester;
const BOB = { platform: 'slack', id: 'U0BOB' } satisfies Requester;
const LINEAR_USER = { platform: 'linear', id: 'lin-user-1' } satisfies Requester;
const slackOnly: PersonIdentity = { personFor: (requester) => Promise.resolve(requester?.platform === 'slack' ? requester.id : undefined) };

/** A stand-in client: which key it was built with, and whether it was closed. */
interface Built {
  apiKey: string;
  runs: AgentRuns;
  closed: boolean;
}

let store: SqliteStore;
let clock: TestClock;
let built: Built[];
const service = { name: 'service' } as unknown as AgentRuns;

function runKeys(attribution: Attribution, maxClients?: number): PersonalRunKeys {
  return new PersonalRunKeys({
    attribution,
    service,
    keys: store.personKeys,
    box,
    settings: store.settings,
    clock,
    identity: slackOnly,
    howToConnect: '`/agent connect` in Slack',
    ...(maxClients !== undefined && { maxClients }),
    clientFor: (apiKey) => {
      const entry: Built = { apiKey, runs: { name: `runs-${built.length}` } as unknown as AgentRuns, closed: false };
      built.push(entry);
      return {
        runs: entry.runs,
        close: () => {
          entry.closed = true;
          return Promise.resolve();
        },
      };
    },
  });
}

const people = () => new PersonKeys(store.personKeys, box);

beforeEach(async () => {
  store = openSqliteStore({ path: ':memory:' });
  clock = new TestClock();
  built = [];
  await people().connect(ALICE.id, 'wk_alice_key_0001', clock.now());
});
afterEach(async () => {
  await store.close();
});

describe('PersonalRunKeys.choose', () => {
  it('personal_if_connected: a connected person runs under a client of their own key, others under the service key', async () => {
    const keys = runKeys('personal_if_connected');
    const alice = await keys.choose(ALICE);
    expect(alice).toMatchObject({ kind: 'use', personalKeyOwner: ALICE.id, personId: ALICE.id });
    expect(built.map((entry) => entry.apiKey)).toEqual(['wk_alice_key_0001']);
    expect(alice.kind === 'use' && alice.runs).toBe(built[0]?.runs);
    expect(await keys.choose(BOB)).toEqual({ kind: 'use', runs: service, personId: BOB.id });
    expect(await keys.choose(LINEAR_USER)).toEqual({ kind: 'use', runs: service });
    expect(await keys.choose(undefined)).toEqual({ kind: 'use', runs: service });
  });

  it('personal_required: someone without a key is refused; a schedule or the CLI (no requester) uses the service key', async () => {
    const keys = runKeys('personal_required');
    expect(await keys.choose(BOB)).toEqual({ kind: 'refused', reason: 'no_key', personId: BOB.id });
    expect(await keys.choose(LINEAR_USER)).toEqual({ kind: 'refused', reason: 'no_key' });
    expect(await keys.choose(undefined)).toEqual({ kind: 'use', runs: service });
    expect(await keys.choose(ALICE)).toMatchObject({ kind: 'use', personalKeyOwner: ALICE.id });
  });

  it('service: everyone uses the service key, while the tracker still gets a connected person’s client', async () => {
    const keys = runKeys('service');
    expect(await keys.choose(ALICE)).toEqual({ kind: 'use', runs: service });
    expect(await keys.forOwner(ALICE.id)).toBe(built[0]?.runs);
  });
});

describe('the client cache', () => {
  it('keeps one client per key, replaces it when the key is connected again and closes the old one a little later', async () => {
    const keys = runKeys('personal_if_connected');
    const first = await keys.forOwner(ALICE.id);
    expect(await keys.forOwner(ALICE.id)).toBe(first);
    expect(built).toHaveLength(1);

    await people().connect(ALICE.id, 'wk_alice_key_0002', clock.now());
    const second = await keys.forOwner(ALICE.id);
    expect(second).not.toBe(first);
    expect(built.map((entry) => entry.apiKey)).toEqual(['wk_alice_key_0001', 'wk_alice_key_0002']);
    // A call that picked the old client a moment ago still goes out with it.
    expect(built[0]?.closed).toBe(false);
    await clock.advance(60_000);
    expect(built[0]?.closed).toBe(true);
    expect(built[1]?.closed).toBe(false);
  });

  it('forgets a disconnected key', async () => {
    const keys = runKeys('personal_if_connected');
    await keys.forOwner(ALICE.id);
    await people().disconnect(ALICE.id);
    expect(await keys.forOwner(ALICE.id)).toBeUndefined();
    expect(await keys.choose(ALICE)).toEqual({ kind: 'use', runs: service, personId: ALICE.id });
    await clock.advance(60_000);
    expect(built[0]?.closed).toBe(true);
    expect(keys.openClients).toBe(0);
  });

  it('is bounded: beyond its size the least recently used client is closed', async () => {
    await people().connect(BOB.id, 'wk_bob_key_0001', clock.now());
    await people().connect('U0CAROL', 'wk_carol_key_0001', clock.now());
    const keys = runKeys('personal_if_connected', 2);
    await keys.forOwner(ALICE.id);
    await keys.forOwner(BOB.id);
    await keys.forOwner(ALICE.id); // Alice is now the most recently used
    await keys.forOwner('U0CAROL');
    await clock.advance(60_000);
    expect(built.filter((entry) => entry.closed).map((entry) => entry.apiKey)).toEqual(['wk_bob_key_0001']);
    expect(keys.openClients).toBe(2);
  });

  it('closes every client at shutdown', async () => {
    const keys = runKeys('personal_if_connected');
    await keys.forOwner(ALICE.id);
    await people().connect(ALICE.id, 'wk_alice_key_0002', clock.now());
    await keys.forOwner(ALICE.id);
    await keys.close();
    expect(built.every((entry) => entry.closed)).toBe(true);
    expect(keys.openClients).toBe(0);
  });
});

describe('what is recorded about a key', () => {
  it('records the last use, and a refusal until a new key is connected', async () => {
    const keys = runKeys('personal_if_connected');
    await clock.advance(1_000);
    await keys.used(ALICE.id);
    expect((await people().summary(ALICE.id))?.lastUsedAt).toBe(clock.now());

    await keys.refused(ALICE.id, 401);
    const connectedAt = (await people().summary(ALICE.id))?.connectedAt ?? 0;
    expect(await keyRefusal(store.settings, ALICE.id, connectedAt)).toEqual({ at: clock.now(), status: 401 });

    await clock.advance(1_000);
    const again = await people().connect(ALICE.id, 'wk_alice_key_0002', clock.now());
    expect(await keyRefusal(store.settings, ALICE.id, again.connectedAt)).toBeUndefined();
  });
});
