import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SLACK, TrackerHarness, runKeys } from '../../../test/core/tracker-harness.js';
import type { AgentRuns } from '../ports/agent-runs.js';
import type { Store } from '../ports/store.js';
import { TRACKER_WATERMARK } from '../ports/setting-names.js';
import { Tracker } from './tracker.js';

/*
 * What a slow tick meets on a busy machine: another tracker recording a transition between our read
 * of a run and our write, and runs changing while the tick is between two pages of its list. Either
 * way the change must still be announced, however far the watermark moved meanwhile.
 */

let h: TrackerHarness;
beforeEach(async () => {
  h = await TrackerHarness.start();
});
afterEach(async () => {
  await h.close();
});

const INTERVAL = 10_000;
/** Longer than the watermark's margin (5 s). */
const PAST_MARGIN = 6_000;

function trackerWith(parts: { owner?: string; runs?: AgentRuns; store?: Store; pageSize?: number }): Tracker {
  return new Tracker({
    store: parts.store ?? h.store,
    runs: parts.runs ?? h.client,
    clock: h.clock,
    logger: h.logger,
    owner: parts.owner ?? 'tracker-1',
    options: { pageSize: parts.pageSize ?? 100, intervalMs: INTERVAL },
  });
}

/** Announcements owed for `runId`, in order. */
async function announced(runId: string): Promise<string[]> {
  return (await h.keys()).filter((key) => key.startsWith(`run:${runId}:`) && key.endsWith(':announce'));
}

describe('Tracker under a slow tick', () => {
  it('announces an end that lost the race to an older observation written by another tracker', async () => {
    const runId = await h.track();
    const other = await h.track();
    await trackerWith({}).tick(); // fresh database: the watermark
    await h.advance(1_000);
    const working = h.drive(runId, 'INPROGRESS');
    await h.advance(1_000);
    h.drive(runId, 'SUCCEEDED');
    // Something else changes well after the end: this tick's watermark moves past the end and its margin.
    await h.advance(PAST_MARGIN);
    h.drive(other, 'INPROGRESS');
    // A slower tracker saw INPROGRESS and records it between our read of the run and our write.
    const racing = Object.create(h.store.trackedRuns) as Store['trackedRuns'];
    let raced = false;
    racing.recordTransition = async (...args) => {
      if (args[0] === runId && !raced) {
        raced = true;
        const stale = { state: 'INPROGRESS', serverUpdatedAt: working.updated_at ?? null, sessionLink: working.session_link ?? null, tracked: true };
        expect(await h.store.trackedRuns.recordTransition(runId, 0, stale, [], h.clock.now())).toBe(true);
      }
      return h.store.trackedRuns.recordTransition(...args);
    };
    await trackerWith({ store: Object.assign(Object.create(h.store) as Store, { trackedRuns: racing }) }).tick();
    expect(raced).toBe(true);
    for (let tick = 0; tick < 3; tick++) {
      await h.advance(INTERVAL);
      await trackerWith({}).tick();
    }
    expect(await h.store.trackedRuns.get(runId)).toMatchObject({ state: 'SUCCEEDED', tracked: false });
    expect(await announced(runId)).toEqual(runKeys(runId, SLACK, [2, 'announce']));
  });

  it('announces a change on a page already passed while the tick was slow to reach the next page', async () => {
    const older = await h.track();
    const newer = await h.track();
    const tracker = (runs?: AgentRuns) => trackerWith({ pageSize: 1, ...(runs && { runs }) });
    await tracker().tick(); // fresh database: the watermark
    await h.advance(1_000);
    h.drive(newer, 'INPROGRESS');
    h.drive(older, 'INPROGRESS');
    await h.advance(1_000);
    // Newest first: `newer` is page 1, `older` page 2. Before page 2 is asked for, `newer` ends, and
    // `older` changes once more well after that.
    const slow = Object.create(h.client) as AgentRuns;
    let between = false;
    slow.listRuns = async (query) => {
      if (query?.cursor !== undefined && !between) {
        between = true;
        h.drive(newer, 'SUCCEEDED');
        await h.advance(PAST_MARGIN);
        h.drive(older, 'BLOCKED');
      }
      return h.client.listRuns(query);
    };
    await tracker(slow).tick();
    expect(between).toBe(true);
    for (let tick = 0; tick < 3; tick++) {
      await h.advance(INTERVAL);
      await tracker().tick();
    }
    expect(await h.store.trackedRuns.get(newer)).toMatchObject({ state: 'SUCCEEDED', tracked: false });
    expect(await announced(newer)).toEqual(runKeys(newer, SLACK, [2, 'announce']));
    expect(await h.setting(TRACKER_WATERMARK)).toBeDefined();
  });

  it('announces an end of a run a fresh database observed while its first runs were being read one by one', async () => {
    // A fresh database has no watermark: the first ticks read tracked runs one by one. A run read early
    // in such a tick and changed afterwards must be listed by a later tick, however late the run read
    // after it was updated.
    const runs = [await h.track(), await h.track()];
    for (const runId of runs) h.drive(runId, 'BLOCKED');
    let first: string | undefined;
    const slow = Object.create(h.client) as AgentRuns;
    slow.getRun = async (runId) => {
      const item = await h.client.getRun(runId);
      if (first === undefined) {
        // Between this read and the next, the person answers and the run ends; much later the other
        // run ends too, and that is the run read next.
        first = runId;
        await h.advance(1_000);
        h.drive(runId, 'SUCCEEDED');
        await h.advance(PAST_MARGIN);
        h.drive(
          runs.find((other) => other !== runId)!,
          'SUCCEEDED',
        );
      }
      return item;
    };
    await trackerWith({ runs: slow }).tick();
    expect(await h.store.trackedRuns.get(first!)).toMatchObject({ state: 'BLOCKED' });
    for (let tick = 0; tick < 3; tick++) {
      await h.advance(INTERVAL);
      await trackerWith({}).tick();
    }
    expect(await h.store.trackedRuns.get(first!)).toMatchObject({ state: 'SUCCEEDED', tracked: false });
    expect(await announced(first!)).toEqual(runKeys(first!, SLACK, [1, 'announce'], [2, 'announce']));
  });

  it('keeps its lease while a slow tick lasts: another tracker does not tick beside it, and takes over once it is gone', async () => {
    const runId = await h.track();
    await trackerWith({}).tick(); // fresh database: the watermark
    h.drive(runId, 'INPROGRESS');
    const leaseMs = 3 * INTERVAL;
    const other = new Tracker({
      store: h.store,
      runs: h.client,
      clock: h.clock,
      logger: h.logger,
      owner: 'tracker-2',
      options: { pageSize: 100, intervalMs: INTERVAL, leaseMs },
    });
    const besides: boolean[] = [];
    const slow = Object.create(h.client) as AgentRuns;
    slow.listRuns = async (query) => {
      // The list answers after two leases; the other tracker tries meanwhile, at every third of one.
      for (let step = 0; step < 6; step++) {
        await h.advance(leaseMs / 3);
        besides.push((await other.tick()).ran);
      }
      return h.client.listRuns(query);
    };
    const slowTracker = new Tracker({
      store: h.store,
      runs: slow,
      clock: h.clock,
      logger: h.logger,
      owner: 'tracker-1',
      options: { pageSize: 100, intervalMs: INTERVAL, leaseMs },
    });
    await slowTracker.tick();
    expect(besides).toEqual([false, false, false, false, false, false]);
    expect(await h.store.trackedRuns.get(runId)).toMatchObject({ state: 'INPROGRESS' });
    // Once it stopped renewing (its tick ended, or its process died), the lease runs out and the other ticks.
    await h.advance(leaseMs);
    expect((await other.tick()).ran).toBe(true);
  });
});
