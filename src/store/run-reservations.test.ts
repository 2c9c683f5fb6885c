import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Limits } from '../core/limits/limits.js';
import type { StartReservation, Store } from '../core/ports/store.js';
import { aRun, aTrigger } from '../../test/store/helpers.js';
import { describeEachStore } from '../../test/store/adapters.js';

/** The limits' reservations: one transaction counts and reserves, on both engines. */
describeEachStore((adapter) => {
  let store: Store;
  beforeEach(async () => {
    store = await adapter.open();
  });
  afterEach(async () => {
    await store.close();
  });

  const DAY = 86_400_000;
  const NOW = Date.UTC(2026, 10, 27, 12);
  const DAY_START = Date.UTC(2026, 10, 27);
  const MONTH_START = Date.UTC(2026, 10, 1);
  const limits = (set: Partial<Limits>): Limits => ({ concurrent: 0, perDay: 0, creditsPerMonth: 0, ...set });

  function reservation(triggerKey: string, extra: Partial<StartReservation> = {}): StartReservation {
    return {
      triggerKey,
      person: { id: 'U_ANN', limits: limits({}) },
      route: { name: 'web' },
      now: NOW,
      dayStart: DAY_START,
      monthStart: MONTH_START,
      recent: NOW - 32 * DAY,
      ...extra,
    };
  }

  /** A start trigger being worked (pending), as the intake worker holds one while it reserves. */
  async function working(key: string): Promise<void> {
    await store.triggers.enqueue({ trigger: aTrigger({ key, anchor: `slack:C1:${key}` }), now: NOW - 1000 });
  }

  describe('usage.reserveStart: concurrent', () => {
    it('counts runs not ended and reservations of triggers still worked; the last slot goes once; an ended run frees one', async () => {
      const annTwo = { person: { id: 'U_ANN', limits: limits({ concurrent: 2 }) } };
      await store.trackedRuns.insert(aRun('r1', { askedBy: 'U_ANN', routeName: 'web' }), NOW - DAY);
      await store.trackedRuns.insert(aRun('r-bob', { askedBy: 'U_BOB', routeName: 'web' }), NOW - DAY);
      await working('Ev1');
      await working('Ev2');
      expect(await store.usage.reserveStart(reservation('Ev1', annTwo))).toEqual({ reserved: true });
      expect(await store.usage.reserveStart(reservation('Ev2', annTwo))).toEqual({ reserved: false, scope: 'person', limit: 'concurrent', value: 2, used: 2 });
      // A retry of the reserved trigger keeps its room; Bob is not limited by Ann's runs.
      expect(await store.usage.reserveStart(reservation('Ev1', annTwo))).toEqual({ reserved: true });
      await working('EvBob');
      expect(await store.usage.reserveStart(reservation('EvBob', { person: { id: 'U_BOB', limits: limits({ concurrent: 2 }) } }))).toEqual({ reserved: true });
      // r1 ends: its slot frees.
      await store.trackedRuns.recordTransition('r1', 0, { state: 'SUCCEEDED', serverUpdatedAt: null, sessionLink: null, tracked: false }, [], NOW);
      expect(await store.usage.reserveStart(reservation('Ev2', annTwo))).toEqual({ reserved: true });
    });

    it('a reservation whose trigger ended without a run stops counting', async () => {
      const one = { person: { id: 'U_ANN', limits: limits({ concurrent: 1 }) } };
      await working('Ev1');
      await working('Ev2');
      expect(await store.usage.reserveStart(reservation('Ev1', one))).toEqual({ reserved: true });
      expect(await store.usage.reserveStart(reservation('Ev2', one))).toMatchObject({ reserved: false, limit: 'concurrent' });
      const claimed = await store.triggers.claimNext('w1', NOW, 30_000);
      expect(claimed?.key).toBe('Ev1');
      await store.triggers.finish(claimed!.id, 'w1', { state: 'failed', error: 'run API refused' }, {}, NOW);
      expect(await store.usage.reserveStart(reservation('Ev2', one))).toEqual({ reserved: true });
    });
  });

  describe('usage.reserveStart: per_day and credits_per_month, by person and by route', () => {
    it('per_day counts the runs and reservations since the UTC day began', async () => {
      const route = { person: undefined, route: { name: 'web', limits: limits({ perDay: 2 }) } } as const;
      await store.trackedRuns.insert(aRun('yesterday', { routeName: 'web' }), DAY_START - 1);
      await store.trackedRuns.insert(aRun('today', { routeName: 'web' }), DAY_START);
      await store.trackedRuns.insert(aRun('other-route', { routeName: 'api' }), DAY_START + 1);
      await working('Ev1');
      await working('Ev2');
      expect(await store.usage.reserveStart(reservation('Ev1', { ...route, person: undefined }))).toEqual({ reserved: true });
      expect(await store.usage.reserveStart(reservation('Ev2', { ...route, person: undefined }))).toEqual({
        reserved: false,
        scope: 'route',
        limit: 'per_day',
        value: 2,
        used: 2,
      });
    });

    it('credits_per_month sums the usage of the runs started since the UTC month began; the person is checked before the route', async () => {
      await store.trackedRuns.insert(aRun('last-month', { askedBy: 'U_ANN', routeName: 'web' }), MONTH_START - 1);
      await store.trackedRuns.recordUsage([{ runId: 'last-month', usage: { inferenceCost: 100 } }], NOW);
      await store.trackedRuns.insert(aRun('m1', { askedBy: 'U_ANN', routeName: 'web' }), MONTH_START + 5);
      await store.trackedRuns.recordUsage([{ runId: 'm1', usage: { inferenceCost: 4.5, computeCost: 0.5 } }], NOW);
      await working('Ev1');
      const both = {
        person: { id: 'U_ANN', limits: limits({ creditsPerMonth: 5 }) },
        route: { name: 'web', limits: limits({ creditsPerMonth: 5 }) },
      };
      expect(await store.usage.reserveStart(reservation('Ev1', both))).toEqual({
        reserved: false,
        scope: 'person',
        limit: 'credits_per_month',
        value: 5,
        used: 5,
      });
      expect(await store.usage.reserveStart(reservation('Ev1', { ...both, person: { id: 'U_ANN', limits: limits({ creditsPerMonth: 6 }) } }))).toEqual({
        reserved: false,
        scope: 'route',
        limit: 'credits_per_month',
        value: 5,
        used: 5,
      });
      expect(
        await store.usage.reserveStart(reservation('Ev1', { person: both.person, route: { name: 'web', limits: limits({ creditsPerMonth: 5.5 }) } })),
      ).toMatchObject({
        reserved: false,
        scope: 'person',
      });
      expect(await store.usage.reserveStart(reservation('Ev1', { person: { id: 'U_ANN', limits: limits({ creditsPerMonth: 5.01 }) } }))).toEqual({
        reserved: true,
      });
    });

    it('without limits it reserves (the reservation still counts for others), and deletes reservations older than recent', async () => {
      await working('Old');
      await working('Ev1');
      await working('Ev2');
      expect(await store.usage.reserveStart(reservation('Old', { now: NOW - 40 * DAY }))).toEqual({ reserved: true });
      expect(await store.usage.reserveStart(reservation('Ev1'))).toEqual({ reserved: true });
      const one = { person: { id: 'U_ANN', limits: limits({ concurrent: 2 }) } };
      // Ev1 counts; Old is gone (deleted as older than a month), so there is room for one more.
      expect(await store.usage.reserveStart(reservation('Ev2', one))).toEqual({ reserved: true });
      await working('Ev3');
      expect(await store.usage.reserveStart(reservation('Ev3', one))).toMatchObject({ reserved: false, used: 2 });
    });
  });
});
