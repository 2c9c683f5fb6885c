import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CapturingLogger } from '../../../test/core/capturing-logger.js';
import { KeyedRuns, SERVICE_KEY } from '../../../test/core/keyed-runs.js';
import { RunEngine } from '../../emulator/index.js';
import { openSqliteStore, type SqliteStore } from '../../store/sqlite-store.js';
import { TestClock } from '../ports/clock.js';
import { Tracker } from './tracker.js';
import { testSurfaces } from '../../../test/helpers/surfaces.js';

/**
 * A person's key refused while the tracker watches their runs with it: the owner and each
 * run's place are told once — not at every tick, not again after a restart — and the key is marked.
 */
const INTERVAL = 10_000;
const THREAD = 'slack:C1:1700.1';
const ISSUE = 'linear:issue-1';

let clock: TestClock;
let keyed: KeyedRuns;
let store: SqliteStore;
let refusals: Array<[string, number]>;

beforeEach(() => {
  clock = new TestClock();
  keyed = new KeyedRuns(new RunEngine({ manual: true, clock: { now: () => new Date(clock.now()) } }));
  store = openSqliteStore({ path: ':memory:' });
  refusals = [];
});
afterEach(async () => {
  keyed.engine.close();
  await store.close();
});

function tracker(owner = 'tracker-1'): Tracker {
  return new Tracker({
    surfaces: testSurfaces(),
    store,
    runs: keyed.api(SERVICE_KEY),
    runsForOwner: (person) => Promise.resolve(keyed.api(person)),
    people: {
      refused: (person, status) => {
        refusals.push([person, status]);
        return Promise.resolve();
      },
      howToConnect: () => '`/agent connect` in Slack',
    },
    clock,
    logger: new CapturingLogger(),
    owner,
    options: { pageSize: 100, intervalMs: INTERVAL, leaseMs: INTERVAL },
  });
}

async function track(person: string, destinations: string[]): Promise<string> {
  const run = keyed.create(person);
  await store.trackedRuns.insert(
    {
      runId: run.run_id,
      anchor: destinations[0] ?? THREAD,
      source: 'slack',
      title: 'Fix the build',
      route: {},
      destinations,
      triggerKey: `Ev_${run.run_id}`,
      state: run.state,
      serverUpdatedAt: null,
      sessionLink: null,
      personalKeyOwner: person,
    },
    clock.now(),
  );
  return run.run_id;
}

const owed = async () => (await store.outbox.list()).map((row) => ({ key: row.key, destination: row.destination, payload: row.payload }));

describe('a refused key while the tracker watches its runs', () => {
  it('tells the owner privately and each place once, marks the key, and owes nothing more on later ticks or after a restart', async () => {
    const slackRun = await track('U_ANN', [THREAD, 'slack:home:U_ANN']);
    const linearRun = await track('U_ANN', [ISSUE]);
    const bobs = await track('U_BOB', [THREAD]);
    const first = tracker();
    await first.tick();
    expect(await owed()).toEqual([]);

    keyed.refuse('U_ANN');
    await clock.advance(INTERVAL);
    await first.tick();
    const rows = await owed();
    expect(rows.map((row) => row.key).sort()).toEqual(
      [`key-lost-private:${slackRun}:0`, `key-lost:${slackRun}:0:${THREAD}`, `key-lost:${linearRun}:0:${ISSUE}`].sort(),
    );
    const text = (key: string) => JSON.stringify(rows.find((row) => row.key === key)?.payload);
    expect(text(`key-lost-private:${slackRun}:0`)).toContain('"privateTo":"U_ANN"');
    expect(text(`key-lost-private:${slackRun}:0`)).toContain('refused your personal API key (401)');
    // Linear has no private messages: the issue says how to connect a key; the Slack thread does not.
    expect(text(`key-lost:${linearRun}:0:${ISSUE}`)).toContain('They can connect one with `/agent connect` in Slack.');
    expect(text(`key-lost:${slackRun}:0:${THREAD}`)).not.toContain('/agent connect');
    expect(refusals).toEqual([['U_ANN', 401]]);
    expect(rows.some((row) => row.key.includes(bobs))).toBe(false);

    // Later ticks of this process, and a restarted process (which does not remember warning), owe nothing more.
    const sizeAfter = rows.length;
    await clock.advance(INTERVAL);
    await first.tick();
    expect(refusals).toHaveLength(1);
    await first.release();
    await clock.advance(INTERVAL);
    expect((await tracker('tracker-2').tick()).ran).toBe(true);
    expect(refusals).toHaveLength(2);
    expect(await owed()).toHaveLength(sizeAfter);
  });
});
