import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TrackerHarness, listRequests } from '../../../test/core/tracker-harness.js';
import type { RunItem } from '../ports/agent-runs.js';
import { reportedUsage, usageChanged } from './run-usage.js';

let h: TrackerHarness;
beforeEach(async () => {
  h = await TrackerHarness.start();
});
afterEach(async () => {
  await h.close();
});

const INTERVAL = 10_000;

describe('Tracker usage (issue 31 point 1)', () => {
  it('keeps the latest request_usage of each run from the lists it already reads: no request of its own, no message', async () => {
    const tracker = h.tracker();
    const runId = await h.track();
    await tracker.tick();
    h.drive(runId, 'INPROGRESS');
    await h.advance(INTERVAL);
    await tracker.tick();
    expect(await h.store.trackedRuns.get(runId)).toMatchObject({ state: 'INPROGRESS', transition: 1, usage: { inferenceCost: 0.01, computeCost: 0.002 } });
    const owed = await h.keys();

    // The run works on: its usage grows while its state stays.
    h.drive(runId, 'INPROGRESS');
    h.drive(runId, 'INPROGRESS');
    await h.advance(INTERVAL);
    await h.clearRequests();
    expect(await tracker.tick()).toMatchObject({ changed: 0 });
    expect(await h.store.trackedRuns.get(runId)).toMatchObject({
      state: 'INPROGRESS',
      transition: 1,
      usage: { inferenceCost: 0.03, computeCost: 0.006 },
      lastSeenAt: h.clock.now(),
    });
    const requests = await h.requests();
    expect(listRequests(requests)).toHaveLength(1);
    expect(requests).toHaveLength(1);
    expect(await h.keys()).toEqual(owed);

    h.drive(runId, 'SUCCEEDED');
    await h.advance(INTERVAL);
    await tracker.tick();
    expect(await h.store.trackedRuns.get(runId)).toMatchObject({ state: 'SUCCEEDED', tracked: false, usage: { inferenceCost: 0.04, computeCost: 0.008 } });
  });

  it('reads request_usage tolerantly: a missing, null or malformed figure is left out, never a stored zero', () => {
    const item = (request_usage: unknown) => ({ run_id: 'r1', state: 'INPROGRESS', request_usage }) as RunItem;
    expect(reportedUsage(item({ inference_cost: 1.25, compute_cost: 0.5, extra: 'x' }))).toEqual({ inferenceCost: 1.25, computeCost: 0.5 });
    expect(reportedUsage(item({ compute_cost: 0.5 }))).toEqual({ computeCost: 0.5 });
    expect(reportedUsage(item({ inference_cost: null, compute_cost: 'lots' }))).toBeUndefined();
    expect(reportedUsage(item({ inference_cost: -1, compute_cost: Number.NaN }))).toBeUndefined();
    expect(reportedUsage(item(null))).toBeUndefined();
    expect(reportedUsage(item(undefined))).toBeUndefined();
    expect(usageChanged({ inferenceCost: 1, computeCost: 2 }, { inferenceCost: 1 })).toBe(false);
    expect(usageChanged({ inferenceCost: 1, computeCost: 2 }, { computeCost: 3 })).toBe(true);
    expect(usageChanged(undefined, { computeCost: 0 })).toBe(true);
    expect(usageChanged({ computeCost: 0 }, undefined)).toBe(false);
  });
});
