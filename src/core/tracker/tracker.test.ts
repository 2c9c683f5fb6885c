import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SLACK, TrackerHarness, listRequests, runKeys } from '../../../test/core/tracker-harness.js';
import { TestClock } from '../ports/clock.js';
import type { OutboxMessage } from '../ports/messages.js';
import type { Store } from '../ports/store.js';
import { TRACKER_LISTED_AT, TRACKER_SCAN, TRACKER_WATERMARK } from '../ports/setting-names.js';

let h: TrackerHarness;
beforeEach(async () => {
  h = await TrackerHarness.start();
});
afterEach(async () => {
  await h.close();
});

const INTERVAL = 10_000;
const LINEAR = 'linear:ENG-1';

describe('Tracker transitions', () => {
  it('announces each transition once and stops tracking the run at its end', async () => {
    const tracker = h.tracker();
    const runId = await h.track();
    expect(await tracker.tick()).toMatchObject({ ran: true, changed: 0, tracked: 1 });
    for (const state of ['INPROGRESS', 'BLOCKED', 'INPROGRESS', 'SUCCEEDED']) {
      await h.advance(INTERVAL);
      h.drive(runId, state);
      expect((await tracker.tick()).changed).toBe(1);
      // Further ticks see nothing new.
      await h.advance(INTERVAL);
      expect((await tracker.tick()).changed).toBe(0);
    }
    expect(await h.keys()).toEqual(runKeys(runId, SLACK, [1, 'status'], [2, 'status', 'announce'], [3, 'status'], [4, 'status', 'announce']));
    const stored = await h.store.trackedRuns.get(runId);
    expect(stored).toMatchObject({ state: 'SUCCEEDED', tracked: false, transition: 4 });
    expect(await h.payload(`run:${runId}:4:${SLACK}:announce`)).toEqual({
      kind: 'announce',
      receivedKey: `received:Ev1:${SLACK}`,
      run: { runId, title: 'Fix the build', state: 'SUCCEEDED', statusText: 'Completed', sessionLink: stored?.sessionLink ?? '', pullRequests: [] },
    } satisfies OutboxMessage);
    expect(stored?.sessionLink).toMatch(/\/sessions\/sess_/);
    await h.advance(INTERVAL);
    await h.clearRequests();
    expect(await tracker.tick()).toEqual({ ran: true, requests: 0, changed: 0, tracked: 0 });
    expect(await h.requests()).toEqual([]);
    expect(h.metrics.calls.at(-1)).toBe('trackerTick({"requests":0,"changed":0,"tracked":0})');
  });

  it('owes every destination its rows and names who cancelled', async () => {
    const tracker = h.tracker();
    const runId = await h.track({ destinations: [SLACK, LINEAR], triggerKey: null });
    await tracker.tick();
    await h.store.settings.set(`cancelled_by:${runId}`, 'U42');
    h.emulator.engine.cancel(runId);
    await h.advance(INTERVAL);
    await tracker.tick();
    expect(await h.keys()).toEqual([...runKeys(runId, SLACK, [1, 'status', 'announce']), ...runKeys(runId, LINEAR, [1, 'status', 'announce'])]);
    expect(await h.payload(`run:${runId}:1:${LINEAR}:announce`)).toMatchObject({
      kind: 'announce',
      cancelledBy: 'U42',
      receivedKey: `received:${runId}:${LINEAR}`,
      run: { state: 'CANCELLED' },
    });
  });

  it('treats a new session link alone as a status edit, never an announcement', async () => {
    const tracker = h.tracker();
    const run = h.emulator.engine.createRun({ prompt: 'Needs input' });
    const blocked = h.drive(run.run_id, 'BLOCKED');
    await h.store.trackedRuns.insert(h.trackedRun(blocked, { sessionLink: null }), h.clock.now());
    await tracker.tick();
    expect(await h.keys()).toEqual(runKeys(run.run_id, SLACK, [1, 'status']));
    expect(await h.store.trackedRuns.get(run.run_id)).toMatchObject({ state: 'BLOCKED', sessionLink: blocked.session_link, tracked: true });
  });

  it('announces the second SUCCEEDED of a run revived by a follow-up', async () => {
    const tracker = h.tracker();
    const runId = await h.track();
    await tracker.tick();
    h.drive(runId, 'SUCCEEDED');
    await h.advance(INTERVAL);
    await tracker.tick();
    // Revived and ended again between two ticks, then once more with every step seen.
    h.emulator.engine.sendFollowup(runId, 'also update the docs');
    await h.store.trackedRuns.retrack(runId, h.clock.now());
    h.drive(runId, 'INPROGRESS');
    h.drive(runId, 'SUCCEEDED');
    await h.advance(INTERVAL);
    expect((await tracker.tick()).changed).toBe(1);
    h.emulator.engine.sendFollowup(runId, 'and the changelog');
    await h.store.trackedRuns.retrack(runId, h.clock.now());
    for (const state of ['INPROGRESS', 'SUCCEEDED']) {
      await h.advance(INTERVAL);
      await tracker.tick();
      h.drive(runId, state);
    }
    await h.advance(INTERVAL);
    await tracker.tick();
    expect(await h.keys()).toEqual(
      runKeys(runId, SLACK, [1, 'status', 'announce'], [2, 'status', 'announce'], [3, 'status'], [4, 'status'], [5, 'status', 'announce']),
    );
    expect(await h.payload(`run:${runId}:3:${SLACK}`.concat(':status'))).toMatchObject({ run: { state: 'QUEUED' } });
    expect(await h.store.trackedRuns.get(runId)).toMatchObject({ state: 'SUCCEEDED', tracked: false });
  });

  it('shows an unknown state, keeps the run tracked and fetches it each tick until it ends', async () => {
    const tracker = h.tracker();
    const runId = await h.track();
    await tracker.tick();
    h.drive(runId, 'WAITING_FOR_REVIEW');
    await h.advance(INTERVAL);
    await tracker.tick();
    expect(await h.payload(`run:${runId}:1:${SLACK}:status`)).toMatchObject({ run: { state: 'WAITING_FOR_REVIEW', statusText: 'Waiting for review' } });
    expect(await h.store.trackedRuns.get(runId)).toMatchObject({ state: 'WAITING_FOR_REVIEW', tracked: true });
    // Once a later change of another run moves the watermark on, the list no longer shows this run,
    // so the tracker fetches it on its own, every tick.
    const other = await h.track();
    await h.advance(INTERVAL);
    h.drive(other, 'INPROGRESS');
    await tracker.tick();
    for (let tick = 0; tick < 2; tick++) {
      await h.advance(INTERVAL);
      await h.clearRequests();
      await tracker.tick();
      expect((await h.requests()).map((r) => r.path)).toEqual(['/api/v1/agent/runs', `/api/v1/agent/runs/${runId}`]);
    }
    h.drive(runId, 'SUCCEEDED');
    await h.advance(INTERVAL);
    await tracker.tick();
    expect((await h.keys()).filter((key) => key.includes(runId))).toEqual(runKeys(runId, SLACK, [1, 'status'], [2, 'status', 'announce']));
    expect(await h.store.trackedRuns.get(runId)).toMatchObject({ tracked: false });
  });

  it('stops tracking a run the API no longer knows and tells its destinations once', async () => {
    const tracker = h.tracker();
    await h.store.trackedRuns.insert(h.trackedRun({ run_id: 'run_gone', state: 'INPROGRESS' }), h.clock.now());
    expect(await tracker.tick()).toMatchObject({ requests: 1, tracked: 0 });
    expect(await h.keys()).toEqual(runKeys('run_gone', SLACK, [1, 'notice']));
    expect(await h.payload(`run:run_gone:1:${SLACK}:notice`)).toMatchObject({ kind: 'notice', text: expect.stringContaining('run_gone') });
    expect(await h.store.trackedRuns.get('run_gone')).toMatchObject({ state: 'INPROGRESS', tracked: false });
    expect(h.logger.at('warn').map((line) => line.msg)).toContain('run not found by the run API; no longer tracked');
  });
});

describe('Tracker watermark', () => {
  it('takes the watermark from the server and lists updated_after = watermark − margin', async () => {
    const tracker = h.tracker();
    const runId = await h.track();
    await tracker.tick(); // fresh database: one GET, no list
    expect(listRequests(await h.requests())).toEqual([]);
    const first = h.emulator.engine.get(runId)?.updated_at;
    expect(await h.setting(TRACKER_WATERMARK)).toBe(first);
    const driven = h.drive(runId, 'INPROGRESS');
    await h.advance(INTERVAL);
    await h.clearRequests();
    await tracker.tick();
    const [list] = listRequests(await h.requests());
    expect(list?.query['updated_after']).toBe(new Date(Date.parse(first as string) - 5000).toISOString());
    expect(await h.setting(TRACKER_WATERMARK)).toBe(driven.updated_at);
    // The server's clock is an hour behind ours: a watermark from our clock could not be this.
    expect(Date.parse(driven.updated_at as string)).toBeLessThan(h.clock.now() - 3_000_000);
  });

  it('a new tracker on the same store continues from the stored watermark without repeating rows', async () => {
    const runId = await h.track();
    const first = h.tracker('process-1');
    await first.tick();
    h.drive(runId, 'BLOCKED');
    await h.advance(INTERVAL);
    await first.tick();
    const watermark = await h.setting(TRACKER_WATERMARK);
    const rows = await h.keys();
    // The first process died holding the lease; the new one takes over once it expires.
    await h.advance(30_000);
    await h.clearRequests();
    const second = h.tracker('process-2');
    expect(await second.tick()).toMatchObject({ ran: true, changed: 0 });
    expect(listRequests(await h.requests())[0]?.query['updated_after']).toBe(new Date(Date.parse(watermark as string) - 5000).toISOString());
    expect(await h.keys()).toEqual(rows);
    h.drive(runId, 'INPROGRESS');
    await h.advance(INTERVAL);
    expect((await second.tick()).changed).toBe(1);
    expect(await h.keys()).toEqual([...rows, ...runKeys(runId, SLACK, [2, 'status'])]);
  });

  it('survives a failing run API with the watermark unchanged and catches up on the next tick', async () => {
    const tracker = h.tracker();
    const runId = await h.track();
    await tracker.tick();
    const watermark = await h.setting(TRACKER_WATERMARK);
    h.drive(runId, 'INPROGRESS');
    await h.advance(INTERVAL);
    await h.fault({ count: 1, status: 503 });
    expect(await tracker.tick()).toEqual({ ran: true, requests: 1, changed: 0, tracked: 1 });
    expect(await h.setting(TRACKER_WATERMARK)).toBe(watermark);
    expect(h.logger.at('warn').find((line) => line.fields['status'] === 503)?.msg).toBe('listing changed runs failed; watermark unchanged');
    await h.advance(INTERVAL);
    expect((await tracker.tick()).changed).toBe(1);
    expect(await h.keys()).toEqual(runKeys(runId, SLACK, [1, 'status']));
  });
});

/** The store with `runs.get` held until `parties` callers wait on it: both trackers read the same transition number. */
function barrierStore(store: Store, parties: number): Store {
  let waiting: Array<() => void> = [];
  const trackedRuns = Object.create(store.trackedRuns) as Store['trackedRuns'];
  trackedRuns.get = async (runId) => {
    const row = await store.trackedRuns.get(runId);
    await new Promise<void>((resolve) => {
      waiting.push(resolve);
      if (waiting.length < parties) return;
      for (const release of waiting) release();
      waiting = [];
    });
    return row;
  };
  const {
    triggers,
    anchors,
    eventKeys,
    outbox,
    scheduleFires,
    leases,
    processes,
    settings,
    operator,
    personKeys,
    personLinks,
    consoleSessions,
    usage,
    audit,
    approvals,
  } = store;
  return {
    audit,
    approvals,
    operator,
    usage,
    personKeys,
    personLinks,
    consoleSessions,
    triggers,
    trackedRuns,
    anchors,
    eventKeys,
    outbox,
    scheduleFires,
    leases,
    processes,
    settings,
    ping: () => store.ping(),
    close: () => store.close(),
  };
}

describe('Tracker across processes', () => {
  it('lets one tracker tick at a time (lease)', async () => {
    await h.track();
    const [a, b] = await Promise.all([h.tracker('a').tick(), h.tracker('b').tick()]);
    expect(a).toMatchObject({ ran: true, requests: 1 });
    expect(b).toEqual({ ran: false, requests: 0, changed: 0, tracked: 0 });
    expect(await h.requests()).toHaveLength(1);
  });

  it('records a change seen by two racing trackers once', async () => {
    const runId = await h.track();
    await h.tracker('a').tick();
    h.drive(runId, 'SUCCEEDED');
    await h.advance(INTERVAL);
    const shared = barrierStore(h.store, 2);
    // b's clock is past a's lease: a tick that outlived its lease races the next lease holder.
    const bClock = new TestClock(h.clock.now() + 30_001);
    const reports = await Promise.all([h.tracker('a', {}, { store: shared }).tick(), h.tracker('b', {}, { store: shared, clock: bClock }).tick()]);
    expect(reports.map((report) => report.ran)).toEqual([true, true]);
    expect(reports.map((report) => report.changed).sort()).toEqual([0, 1]);
    expect(await h.keys()).toEqual(runKeys(runId, SLACK, [1, 'status', 'announce']));
  });
});

describe('Tracker cost', () => {
  it('resumes a long list on the next tick and still catches a change on a page already passed', async () => {
    const tracker = h.tracker('t', { pageSize: 2, maxPagesPerTick: 2 });
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push(await h.track());
    const [oldest, newest] = [ids[0] as string, ids[9] as string];
    await tracker.tick(); // bootstrap: ten GETs
    await h.advance(INTERVAL);
    const first = ids.map((id) => h.drive(id, 'INPROGRESS'));
    expect(await tracker.tick()).toMatchObject({ requests: 2, changed: 4 }); // pages 1–2 of 5
    expect(await h.setting(TRACKER_SCAN)).not.toBe('');
    await h.advance(INTERVAL);
    h.drive(newest, 'BLOCKED'); // its page was passed
    await h.advance(INTERVAL);
    const last = h.drive(oldest, 'BLOCKED'); // on the last page, later than everything else
    expect(await tracker.tick()).toMatchObject({ requests: 2, changed: 4 });
    expect(await tracker.tick()).toMatchObject({ requests: 1, changed: 2 });
    expect(await h.setting(TRACKER_SCAN)).toBe('');
    // The traversal's watermark comes from its first tick, not from `last`: the next one lists `newest` again.
    expect(await h.setting(TRACKER_WATERMARK)).toBe(first[9]?.updated_at);
    expect(Date.parse(last.updated_at as string)).toBeGreaterThan(Date.parse(first[9]?.updated_at as string) + 5000);
    for (let tick = 0; tick < 3; tick++) await tracker.tick();
    expect((await h.keys()).filter((key) => key.includes(newest))).toEqual(runKeys(newest, SLACK, [1, 'status'], [2, 'status', 'announce']));
  });

  it('costs at most 3 requests per tick for 10,000 tracked runs of which 5 changed', async () => {
    const engine = h.emulator.engine;
    const now = h.clock.now();
    const ids: string[] = [];
    for (let i = 0; i < 10_000; i++) {
      const run = engine.createRun({ prompt: `task ${i}` });
      ids.push(run.run_id);
      await h.store.trackedRuns.insert(h.trackedRun(run), now);
    }
    // A run on the first list page whose change comes after every creation (and is not fetched by the bootstrap).
    const sentinel = ids.slice(-100).reduce((a, b) => (a > b ? a : b));
    expect([...ids].sort().indexOf(sentinel)).toBeGreaterThan(20);
    const tracker = h.tracker('t', { pageSize: 100, intervalMs: INTERVAL });
    await h.advance(60_000);
    const moved = h.drive(sentinel, 'INPROGRESS');
    // Priming: the bootstrap tick, then one traversal of the 100 pages changed around the first watermark.
    expect(await tracker.tick()).toMatchObject({ requests: 20 });
    let pages = 0;
    for (let tick = 0; tick < 5; tick++) {
      await h.advance(INTERVAL);
      await h.clearRequests();
      await tracker.tick();
      pages += listRequests(await h.requests()).length;
    }
    expect(pages).toBe(100);
    expect(await h.setting(TRACKER_WATERMARK)).toBe(moved.updated_at);
    expect(await h.setting(TRACKER_LISTED_AT)).toBeDefined();

    await h.advance(INTERVAL);
    const changed = ids.slice(0, 5).map((id) => h.drive(id, 'INPROGRESS').run_id);
    await h.clearRequests();
    const report = await tracker.tick();
    const log = await h.requests();
    expect(report).toMatchObject({ ran: true, changed: 5, tracked: 10_000 });
    expect(report.requests).toBeLessThanOrEqual(3);
    expect(log).toHaveLength(report.requests);
    expect(listRequests(log)[0]?.query).toMatchObject({
      limit: '100',
      updated_after: new Date(Date.parse(moved.updated_at as string) - 5000).toISOString(),
    });
    for (const id of changed) expect(await h.store.outbox.getByKey(`run:${id}:1:${SLACK}:status`)).toBeDefined();
    // Quiet runs stay cheap past staleAfterMs (10 intervals): each complete list vouches for them.
    for (let tick = 0; tick < 12; tick++) {
      await h.advance(INTERVAL);
      expect((await tracker.tick()).requests).toBe(1);
    }
  }, 60_000);
});
