import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CapturingLogger } from '../../../test/core/capturing-logger.js';
import { KeyedRuns, SERVICE_KEY } from '../../../test/core/keyed-runs.js';
import { RunEngine } from '../../emulator/index.js';
import { openSqliteStore, type SqliteStore } from '../../store/sqlite-store.js';
import { TestClock } from '../ports/clock.js';
import { trackerOwnerWatermarkSetting } from '../ports/setting-names.js';
import { Tracker, type TrackerOptions } from './tracker.js';

/**
 * The tracker with runs under people's own keys, against a run API in owner
 * visibility: each key lists and fetches only the runs it created, and every request is counted per key.
 */
const INTERVAL = 10_000;
const PAGE = 100;
const SLACK = 'slack:C1:1700.1';

let clock: TestClock;
let serverNow: number;
let keyed: KeyedRuns;
let store: SqliteStore;
let logger: CapturingLogger;
/** People whose key is connected (RunsForOwner answers for them only). */
let connected: Set<string>;

beforeEach(() => {
  clock = new TestClock();
  // The server's clock is an hour behind ours: watermarks must come from its timestamps.
  serverNow = clock.now() - 3_600_000;
  keyed = new KeyedRuns(new RunEngine({ manual: true, clock: { now: () => new Date(serverNow) } }));
  store = openSqliteStore({ path: ':memory:' });
  logger = new CapturingLogger();
  connected = new Set();
});

afterEach(async () => {
  keyed.engine.close();
  await store.close();
});

function tracker(options: Partial<TrackerOptions> = {}): Tracker {
  return new Tracker({
    store,
    runs: keyed.api(SERVICE_KEY),
    runsForOwner: async (person) => (connected.has(person) ? keyed.api(person) : undefined),
    clock,
    logger,
    owner: 'tracker-1',
    // A margin shorter than a tick: a tick lists only what changed since the previous one.
    options: { pageSize: PAGE, intervalMs: INTERVAL, watermarkMarginMs: 1000, ...options },
  });
}

/** Creates a run with the person's key (or the service key) and tracks it as the intake worker would. */
async function track(person: string | undefined): Promise<string> {
  const run = keyed.create(person ?? SERVICE_KEY);
  await store.trackedRuns.insert(
    {
      runId: run.run_id,
      anchor: SLACK,
      source: 'slack',
      title: 'Fix the build',
      route: {},
      destinations: [SLACK],
      triggerKey: null,
      state: run.state,
      serverUpdatedAt: null,
      sessionLink: null,
      ...(person === undefined ? {} : { personalKeyOwner: person }),
    },
    clock.now(),
  );
  return run.run_id;
}

async function advance(ms = INTERVAL): Promise<void> {
  serverNow += ms;
  await clock.advance(ms);
}

const person = (n: number): string => `U${String(n).padStart(3, '0')}`;

/** Outbox keys of one run. */
async function rowsOf(runId: string): Promise<string[]> {
  return (await store.outbox.list()).map((row) => row.key).filter((key) => key.startsWith(`run:${runId}:`));
}

describe('Tracker per key: cost', () => {
  it('lists once per key with active runs: 100 people with 10,000 runs cost ≤ 1 + 100 + ⌈changed/limit⌉ requests per tick, never one per run', async () => {
    const runsOf = new Map<string, string[]>();
    for (let p = 0; p < 100; p++) {
      connected.add(person(p));
      const ids: string[] = [];
      for (let i = 0; i < 100; i++) ids.push(await track(person(p)));
      runsOf.set(person(p), ids);
    }
    for (let i = 0; i < 20; i++) await track(undefined);
    const t = tracker();
    // Priming: the service key's first tick fetches a few runs for its watermark; each person's key
    // lists its runs once (no watermark yet). Then every run has been observed.
    for (let tick = 0; tick < 3; tick++) {
      await advance();
      await t.tick();
    }
    expect(await store.settings.get(trackerOwnerWatermarkSetting(person(7)))).toBeDefined();
    await advance();
    keyed.clear();
    expect(await t.tick()).toEqual({ ran: true, requests: 1 + 100, changed: 0, tracked: 10_020 });

    // 300 changes spread over every person: a poller of runs (even of changed runs only) costs ≥ 300.
    await advance();
    for (const ids of runsOf.values()) for (const id of ids.slice(0, 3)) keyed.engine.drive(id, 'INPROGRESS');
    keyed.clear();
    const spread = await t.tick();
    expect(spread.changed).toBe(300);
    expect(spread.requests).toBe(keyed.total());
    expect(spread.requests).toBeLessThanOrEqual(1 + 100 + Math.ceil(300 / PAGE));
    expect(new Set(keyed.requests.values())).toEqual(new Set([1]));

    // One person with more changes than a page: two pages for that key only.
    await advance();
    const busy = runsOf.get(person(0)) ?? [];
    for (const id of busy.slice(0, 99)) keyed.engine.drive(id, 'SUCCEEDED');
    for (let p = 1; p < 100; p++) keyed.engine.drive(runsOf.get(person(p))?.[50] ?? '', 'BLOCKED');
    keyed.clear();
    const heavy = await t.tick();
    expect(heavy.changed).toBe(99 + 99);
    expect(heavy.requests).toBeLessThanOrEqual(1 + 100 + Math.ceil(198 / PAGE));
    expect(keyed.requests.get(person(0))).toBe(1);
    expect(heavy.tracked).toBe(10_020 - 99);

    // Each change was announced once: a further tick owes nothing new.
    const owed = (await store.outbox.list()).length;
    await advance();
    expect(await t.tick()).toMatchObject({ changed: 0 });
    expect((await store.outbox.list()).length).toBe(owed);
    expect(await rowsOf(busy[0] ?? '')).toEqual([`run:${busy[0]}:1:${SLACK}:status`, `run:${busy[0]}:2:${SLACK}:status`, `run:${busy[0]}:2:${SLACK}:announce`]);
  }, 60_000);
});

describe('Tracker per key: refused and missing keys', () => {
  it('keeps the runs of a person whose key is refused, tries one list per tick, warns once, and catches up when it works again', async () => {
    for (const p of ['UANN', 'UBOB']) connected.add(p);
    const ann = [await track('UANN'), await track('UANN')];
    const bob = await track('UBOB');
    await track(undefined);
    const t = tracker();
    for (let tick = 0; tick < 3; tick++) {
      await advance();
      await t.tick();
    }

    const seen = await Promise.all(ann.map(async (id) => (await store.trackedRuns.get(id))?.lastSeenAt));
    expect(seen.every((at) => typeof at === 'number')).toBe(true);
    keyed.refuse('UANN');
    await advance();
    keyed.engine.drive(ann[0] ?? '', 'SUCCEEDED');
    keyed.engine.drive(bob, 'INPROGRESS');
    // A run Ann started after her key was revoked: never observed, so a GET candidate.
    const unseen = await track('UANN');
    for (let tick = 0; tick < 3; tick++) {
      keyed.clear();
      const report = await t.tick();
      expect(keyed.requests.get('UANN')).toBe(1);
      expect(report.changed).toBe(tick === 0 ? 1 : 0);
      await advance();
    }
    // Untouched: nothing was observed of them, so nothing may claim they were seen.
    for (const [i, id] of ann.entries()) expect(await store.trackedRuns.get(id)).toMatchObject({ tracked: true, transition: 0, lastSeenAt: seen[i] });
    expect(await store.trackedRuns.get(unseen)).toMatchObject({ tracked: true, transition: 0, lastSeenAt: null });
    const warnings = logger.at('warn').filter((line) => line.fields['person'] === 'UANN');
    expect(warnings.map((line) => line.msg)).toEqual([
      'cannot follow a person’s runs: the run API refused their key; they stay tracked and are tried again each tick',
    ]);
    expect(warnings[0]?.fields).toMatchObject({ status: 401 });

    keyed.accept('UANN');
    keyed.clear();
    expect(await t.tick()).toMatchObject({ changed: 1 });
    expect(await rowsOf(ann[0] ?? '')).toEqual([`run:${ann[0]}:1:${SLACK}:status`, `run:${ann[0]}:1:${SLACK}:announce`]);
    expect(await store.trackedRuns.get(unseen)).toMatchObject({ tracked: true, lastSeenAt: clock.now() });
    expect(logger.at('info').some((line) => line.fields['person'] === 'UANN' && line.msg === 'a person’s key works again; their runs are followed')).toBe(true);

    // Refused again later: a new episode, said once more.
    keyed.refuse('UANN');
    await advance();
    await t.tick();
    await advance();
    await t.tick();
    expect(logger.at('warn').filter((line) => line.fields['person'] === 'UANN')).toHaveLength(2);
  });

  it('makes no request for a person without a connected key, keeps their runs and says so once', async () => {
    connected.add('UBOB');
    const carol = await track('UCAROL');
    await track('UBOB');
    const t = tracker();
    for (let tick = 0; tick < 3; tick++) {
      await advance();
      keyed.clear();
      await t.tick();
      expect(keyed.requests.get('UCAROL')).toBeUndefined();
    }
    expect(await store.trackedRuns.get(carol)).toMatchObject({ tracked: true, state: 'QUEUED' });
    expect(logger.at('warn').filter((line) => line.fields['person'] === 'UCAROL')).toHaveLength(1);
  });

  it('without RunsForOwner watches every run with the service key, as before', async () => {
    const run = await track(undefined);
    const t = new Tracker({ store, runs: keyed.api(SERVICE_KEY), clock, logger, owner: 't', options: { pageSize: PAGE, intervalMs: INTERVAL } });
    await t.tick();
    await advance();
    keyed.engine.drive(run, 'INPROGRESS');
    keyed.clear();
    expect(await t.tick()).toMatchObject({ requests: 1, changed: 1 });
    expect([...keyed.requests.keys()]).toEqual([SERVICE_KEY]);
  });
});
