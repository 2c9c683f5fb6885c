import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunObservation, Store } from '../core/ports/store.js';
import { aRun, aTrigger } from '../../test/store/helpers.js';
import { describeEachStore } from '../../test/store/adapters.js';

/** Usage and cost: who asked, the route's name and the latest reported usage, kept with each run. */
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

      const { trigger } = await store.triggers.enqueue({ trigger: aTrigger({ key: 'Ev9' }), now: 0 });
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

  describe('usage.sums and usage.totals', () => {
    const DAY = 86_400_000;
    const JAN_1 = Date.UTC(2026, 0, 1);

    async function runOn(runId: string, at: number, extra: Parameters<typeof aRun>[1], usage?: RunObservation['usage']): Promise<void> {
      await store.trackedRuns.insert(aRun(runId, extra), at);
      if (usage) await store.trackedRuns.recordUsage([{ runId, usage }], at + 1);
    }

    beforeEach(async () => {
      await runOn('a1', JAN_1 + 1000, { askedBy: 'U_ANN', routeName: 'web', source: 'slack' }, { inferenceCost: 0.1, computeCost: 0.2 });
      await runOn('a2', JAN_1 + DAY - 1, { askedBy: 'U_ANN', routeName: 'api', source: 'linear' }, { inferenceCost: 1 });
      await runOn('b1', JAN_1 + DAY, { askedBy: 'U_BOB', routeName: 'web', source: 'slack' }, { inferenceCost: 2, computeCost: 0.5 });
      await runOn('s1', JAN_1 + DAY + 5, { routeName: 'nightly', source: 'schedule' });
      await runOn('old', JAN_1 - 1, { askedBy: 'U_ANN', routeName: 'web', source: 'slack' }, { inferenceCost: 50 });
    });

    it('sums the runs created since a time by person and UTC day, credits as last reported; a run without usage counts 0', async () => {
      expect(await store.usage.sums({ by: 'person', since: JAN_1 })).toEqual([
        { key: 'U_ANN', day: '2026-01-01', runs: 2, inferenceCost: 1.1, computeCost: 0.2 },
        { key: 'U_BOB', day: '2026-01-02', runs: 1, inferenceCost: 2, computeCost: 0.5 },
        { key: null, day: '2026-01-02', runs: 1, inferenceCost: 0, computeCost: 0 },
      ]);
    });

    it('sums by route and by source, and narrows to one person', async () => {
      expect(await store.usage.sums({ by: 'route', since: JAN_1 + DAY })).toEqual([
        { key: 'nightly', day: '2026-01-02', runs: 1, inferenceCost: 0, computeCost: 0 },
        { key: 'web', day: '2026-01-02', runs: 1, inferenceCost: 2, computeCost: 0.5 },
      ]);
      expect((await store.usage.sums({ by: 'source', since: 0 })).map(({ key, day, runs }) => [key, day, runs])).toEqual([
        ['slack', '2025-12-31', 1],
        ['linear', '2026-01-01', 1],
        ['slack', '2026-01-01', 1],
        ['schedule', '2026-01-02', 1],
        ['slack', '2026-01-02', 1],
      ]);
      expect(await store.usage.sums({ by: 'route', since: JAN_1, person: 'U_ANN' })).toEqual([
        { key: 'api', day: '2026-01-01', runs: 1, inferenceCost: 1, computeCost: 0 },
        { key: 'web', day: '2026-01-01', runs: 1, inferenceCost: 0.1, computeCost: 0.2 },
      ]);
      expect(await store.usage.sums({ by: 'person', since: JAN_1, person: "U_ANN' OR 1=1 --" })).toEqual([]);
    });

    it('totals every run by source', async () => {
      expect(await store.usage.totals()).toEqual([
        { source: 'linear', runs: 1, inferenceCost: 1, computeCost: 0 },
        { source: 'schedule', runs: 1, inferenceCost: 0, computeCost: 0 },
        { source: 'slack', runs: 3, inferenceCost: 52.1, computeCost: 0.7 },
      ]);
    });
  });
});
