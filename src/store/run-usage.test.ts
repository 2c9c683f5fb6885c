import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunObservation, Store } from '../core/ports/store.js';
import { aRun, aTrigger } from '../../test/store/helpers.js';
import { describeEachStore } from '../../test/store/adapters.js';

/** Usage and cost (issue 31 point 1): who asked, the route's name and the latest reported usage, kept with each run. */
describeEachStore((adapter) => {
  let store: Store;
  beforeEach(async () => {
    store = await adapter.open();
  });
  afterEach(async () => {
    await store.close();
  });

  function seen(state: string, usage?: RunObservation['usage']): RunObservation {
    return { state, serverUpdatedAt: '2026-01-01T00:00:00Z', sessionLink: null, tracked: state !== 'SUCCEEDED', ...(usage && { usage }) };
  }

  describe('who asked and the route, stored with the run', () => {
    it('keeps askedBy and routeName through insert and through finishing the trigger that started the run; absent stays absent', async () => {
      await store.trackedRuns.insert(aRun('r1', { askedBy: 'U_ANN', routeName: 'web' }), 100);
      await store.trackedRuns.insert(aRun('r2'), 100);
      expect(await store.trackedRuns.get('r1')).toMatchObject({ askedBy: 'U_ANN', routeName: 'web' });
      const plain = await store.trackedRuns.get('r2');
      expect(plain).not.toHaveProperty('askedBy');
      expect(plain).not.toHaveProperty('routeName');
      expect(plain).not.toHaveProperty('usage');

      const { trigger } = await store.triggers.enqueue(aTrigger({ key: 'Ev9' }), [], 0);
      await store.triggers.claimNext('w1', 0, 1000);
      const run = aRun('r3', { triggerKey: 'Ev9', askedBy: 'U_BOB', routeName: 'slack' });
      expect(await store.triggers.finish(trigger.id, 'w1', { state: 'done', runId: 'r3' }, { run }, 10)).toBe(true);
      expect(await store.trackedRuns.get('r3')).toMatchObject({ askedBy: 'U_BOB', routeName: 'slack', createdAt: 10 });
    });
  });

  describe('runs.recordTransition with usage', () => {
    it('keeps the latest figures; a figure left out, or no usage at all, keeps what was stored', async () => {
      await store.trackedRuns.insert(aRun('r1'), 100);
      await store.trackedRuns.recordTransition('r1', 0, seen('INPROGRESS', { inferenceCost: 0.5, computeCost: 0.25 }), [], 200);
      expect((await store.trackedRuns.get('r1'))?.usage).toEqual({ inferenceCost: 0.5, computeCost: 0.25 });
      await store.trackedRuns.recordTransition('r1', 1, seen('BLOCKED', { inferenceCost: 0.75 }), [], 300);
      expect((await store.trackedRuns.get('r1'))?.usage).toEqual({ inferenceCost: 0.75, computeCost: 0.25 });
      await store.trackedRuns.recordTransition('r1', 2, seen('SUCCEEDED'), [], 400);
      expect(await store.trackedRuns.get('r1')).toMatchObject({ state: 'SUCCEEDED', usage: { inferenceCost: 0.75, computeCost: 0.25 } });
    });
  });

  describe('runs.recordUsage', () => {
    it('records each run’s latest figures and marks it seen, in one call; unknown ids and left-out figures change nothing', async () => {
      await store.trackedRuns.insert(aRun('r1'), 100);
      await store.trackedRuns.insert(aRun('r2'), 100);
      await store.trackedRuns.insert(aRun('r3'), 100);
      await store.trackedRuns.recordUsage(
        [
          { runId: 'r1', usage: { inferenceCost: 1.5, computeCost: 0.125 } },
          { runId: 'r2', usage: { computeCost: 2 } },
          { runId: 'nope', usage: { inferenceCost: 9 } },
        ],
        500,
      );
      expect(await store.trackedRuns.get('r1')).toMatchObject({ usage: { inferenceCost: 1.5, computeCost: 0.125 }, lastSeenAt: 500, transition: 0 });
      expect(await store.trackedRuns.get('r2')).toMatchObject({ usage: { computeCost: 2 }, lastSeenAt: 500 });
      const untouched = await store.trackedRuns.get('r3');
      expect(untouched?.lastSeenAt).toBeNull();
      expect(untouched).not.toHaveProperty('usage');

      await store.trackedRuns.recordUsage([{ runId: 'r1', usage: { inferenceCost: 2 } }], 600);
      expect(await store.trackedRuns.get('r1')).toMatchObject({ usage: { inferenceCost: 2, computeCost: 0.125 }, lastSeenAt: 600 });
      await store.trackedRuns.recordUsage([], 700);
      expect((await store.trackedRuns.get('r1'))?.lastSeenAt).toBe(600);
    });
  });
});
