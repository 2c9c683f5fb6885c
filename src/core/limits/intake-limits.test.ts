import { beforeEach, describe, expect, it } from 'vitest';
import { useIntakeWorld } from '../../../test/core/intake-harness.js';
import { CapturingLogger } from '../../../test/core/capturing-logger.js';
import { testSurfaces } from '../../../test/helpers/surfaces.js';
import type { OutboxMessage } from '../ports/messages.js';
import type { TriggerInput } from '../ports/triggers.js';
import { IntakeService } from '../intake/intake-service.js';
import { IntakeWorker } from '../intake/intake-worker.js';
import type { RoutingTable } from '../intake/routing.js';
import type { Limits } from './limits.js';

const API_KEY = 'intake-limits-key';
const limits = (set: Partial<Limits>): Limits => ({ concurrent: 0, perDay: 0, creditsPerMonth: 0, ...set });
const routing: RoutingTable = { defaults: { config: { environment_id: 'env_main' } }, schedules: {} };
/** #web's route allows 2 runs a day; other channels route by the defaults (no limits of their own). */
const surfaces = testSurfaces({ slack: { C_WEB: { config: { name: 'web' }, limits: limits({ perDay: 2 }) } } });

// Friday 2026-11-27 15:00 UTC.
const world = useIntakeWorld(API_KEY, { clockStart: Date.UTC(2026, 10, 27, 15), resetEach: true });
let service: IntakeService;
beforeEach(() => {
  service = new IntakeService({ store: world.store, clock: world.clock });
});

function worker(perPerson: Limits = limits({})) {
  return new IntakeWorker({
    store: world.store,
    runs: world.client,
    clock: world.clock,
    logger: new CapturingLogger(),
    routing,
    surfaces,
    owner: 'worker-1',
    options: { retryWindowMs: 15 * 60_000 },
    random: () => 0.5,
    limits: { perPerson },
  });
}

function start(key: string, user = 'U1', channel = 'C1'): TriggerInput {
  const anchor = `slack:${channel}:${key}`;
  return {
    kind: 'start',
    key,
    source: 'slack',
    anchor,
    payload: {
      prompt: 'Fix the flaky test',
      title: 'Fix the flaky test',
      origin: { source: 'slack', channel },
      destinations: [anchor],
      requester: { platform: 'slack', id: user, name: user },
    },
  };
}

const runs = () => world.emulator.engine.list({}).runs;
async function said(key: string): Promise<OutboxMessage[]> {
  return (await world.store.outbox.list())
    .filter((row) => row.key.includes(key) && (row.kind === 'notice' || row.kind === 'failed'))
    .map((row) => row.payload as OutboxMessage);
}

describe('limits in the intake worker (issue 31 point 2)', () => {
  it('limits.per_person.concurrent: a second start while the first runs starts nothing; the asker is told privately which limit and when it frees; not retried', async () => {
    await service.submit(start('Ev1'));
    await service.submit(start('Ev2'));
    await service.submit(start('EvBob', 'U2'));
    await worker(limits({ concurrent: 1 })).drain();
    expect(runs()).toHaveLength(2);
    expect(await world.store.triggers.getByKey('Ev2')).toMatchObject({ state: 'ignored', lastError: 'limit', runId: null, createAttemptedAt: null });
    expect(await world.store.triggers.getByKey('EvBob')).toMatchObject({ state: 'done' });
    expect(await said('Ev2')).toEqual([
      {
        kind: 'notice',
        privateTo: 'U1',
        text: 'No run was started: you have reached your limit of 1 run at once; it frees up when one of your runs ends (limits.per_person.concurrent).',
      },
      expect.objectContaining({
        kind: 'failed',
        reason: 'the person who asked has reached their limit of 1 run at once; it frees up when one of their runs ends (limits.per_person.concurrent)',
      }),
    ]);
    // Settled: a later pass does nothing with it.
    await world.clock.advance(60 * 60_000);
    expect(await worker(limits({ concurrent: 1 })).drain()).toBe(0);
    expect(runs()).toHaveLength(2);
  });

  it('a route’s per_day: the third start of the UTC day on #web is refused until the next UTC midnight; other routes are not limited', async () => {
    for (const key of ['W1', 'W2', 'W3']) await service.submit(start(key, 'U1', 'C_WEB'));
    await service.submit(start('Other', 'U1', 'C1'));
    await worker().drain();
    expect(runs()).toHaveLength(3);
    expect(await world.store.triggers.getByKey('W3')).toMatchObject({ state: 'ignored', lastError: 'limit' });
    expect(await world.store.triggers.getByKey('Other')).toMatchObject({ state: 'done' });
    expect((await said('W3'))[0]).toEqual({
      kind: 'notice',
      privateTo: 'U1',
      text: 'No run was started: the route "web" has reached its limit of 2 runs a day (UTC); it frees up at 2026-11-28 00:00 UTC (limits.per_day of route "web").',
    });
    // The next UTC day has room again.
    await world.clock.advance(9 * 3_600_000);
    await service.submit(start('W4', 'U1', 'C_WEB'));
    await worker().drain();
    expect(await world.store.triggers.getByKey('W4')).toMatchObject({ state: 'done' });
  });

  it('credits_per_month counts the usage the tracker recorded; it frees up on the 1st of next month', async () => {
    await service.submit(start('Ev1'));
    await worker(limits({ creditsPerMonth: 0.5 })).drain();
    const [first] = runs();
    await world.store.trackedRuns.recordUsage([{ runId: first!.run_id, usage: { inferenceCost: 0.4, computeCost: 0.1 } }], world.clock.now());
    await service.submit(start('Ev2'));
    await worker(limits({ creditsPerMonth: 0.5 })).drain();
    expect(await world.store.triggers.getByKey('Ev2')).toMatchObject({ state: 'ignored', lastError: 'limit' });
    expect((await said('Ev2'))[0]).toMatchObject({
      text: 'No run was started: you have reached your limit of 0.5 credits a month (UTC; 0.5 used); it frees up on 2026-12-01 00:00 UTC (limits.per_person.credits_per_month).',
    });
  });

  it('without limits a start costs no reservation', async () => {
    await service.submit(start('Ev1'));
    await worker().drain();
    expect(runs()).toHaveLength(1);
    expect(world.store.db.prepare('SELECT COUNT(*) AS n FROM run_reservations').get()).toEqual({ n: 0 });
  });
});
