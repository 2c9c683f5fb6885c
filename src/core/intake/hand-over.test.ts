import { beforeEach, describe, expect, it, vi } from 'vitest';
import { useIntakeWorld } from '../../../test/core/intake-harness.js';
import { testSurfaces } from '../../../test/helpers/surfaces.js';
import { silentLogger } from '../ports/logger.js';
import type { StoredTrigger } from '../ports/store.js';
import type { TriggerInput } from '../ports/triggers.js';
import { IntakeService, type TriggerTaker } from './intake-service.js';
import { IntakeWorker } from './intake-worker.js';

/**
 * A trigger handed to a free worker in the commit that stores it (`TriggerTaker`): worked without a
 * claim, and given back when its pass never comes. The store's side is in trigger-repository.test.ts.
 */
const API_KEY = 'hand-over-key';
const LEASE = 30_000;
const world = useIntakeWorld(API_KEY, { resetEach: true });

function start(key: string, anchor = 'slack:C1:1700.1'): TriggerInput {
  return {
    kind: 'start',
    key,
    source: 'slack',
    anchor,
    payload: {
      prompt: 'Fix the flaky test',
      title: 'Fix the flaky test',
      origin: { source: 'slack', channel: 'C1' },
      destinations: [anchor],
      requester: { platform: 'slack', id: 'U1', name: 'ada' },
    },
  };
}

function worker(owner: string): IntakeWorker {
  return new IntakeWorker({
    store: world.store,
    runs: world.client,
    clock: world.clock,
    logger: silentLogger,
    routing: { defaults: { config: { environment_id: 'env_main' } }, schedules: {} },
    surfaces: testSurfaces({}),
    owner,
    options: { retryWindowMs: 60_000, leaseMs: LEASE },
  });
}

/** A taker over `target` that records what happened to it, as the intake loops' reservation does. */
function takerFor(target: IntakeWorker) {
  const seen = { taken: [] as StoredTrigger[], released: 0 };
  const taker: TriggerTaker = {
    owner: target.owner,
    leaseMs: target.leaseMs,
    take: (trigger) => {
      seen.taken.push(trigger);
      target.hold(trigger);
    },
    release: () => void seen.released++,
  };
  return { taker, seen };
}

describe('a trigger handed to a free worker as it is stored', () => {
  let stored: number;
  let first: IntakeWorker;
  beforeEach(() => {
    stored = 0;
    first = worker('host:1:w1');
  });
  const service = (reserve: () => TriggerTaker | undefined) =>
    new IntakeService({ store: world.store, clock: world.clock, onStored: () => stored++, reserveWorker: reserve });

  it('is worked by that worker without a claim, and wakes no other worker', async () => {
    const { taker, seen } = takerFor(first);
    const claims = vi.spyOn(world.store.triggers, 'claimNext');
    await service(() => taker).submit(start('Hand1'));
    expect(seen.taken.map((trigger) => trigger.key)).toEqual(['Hand1']);
    expect(stored).toBe(0);
    expect(first.holding).toBe(true);

    expect(await first.workOnce()).toBe(true);
    expect(claims).not.toHaveBeenCalled();
    const done = await world.store.triggers.getByKey('Hand1');
    expect(done).toMatchObject({ state: 'done', attempts: 1 });
    expect(done?.runId).toBeTruthy();
    expect(first.holding).toBe(false);
  });

  it('frees the worker and wakes the others when the store keeps it pending (an earlier trigger of its anchor)', async () => {
    await world.store.triggers.enqueue({ ...start('Ahead'), key: 'Ahead' }, [], world.clock.now());
    const { taker, seen } = takerFor(first);
    const result = await service(() => taker).submit(start('Behind'));
    expect(result.accepted).toBe(true);
    expect(seen).toEqual({ taken: [], released: 1 });
    expect(stored).toBe(1);
    expect(first.holding).toBe(false);
  });

  it('frees the worker for a key already stored, and when storing fails', async () => {
    const { taker, seen } = takerFor(first);
    const intake = service(() => taker);
    await intake.submit(start('Once'));
    await first.workOnce();
    expect((await intake.submit(start('Once'))).accepted).toBe(false);
    expect(seen.released).toBe(1);

    vi.spyOn(world.store.triggers, 'enqueue').mockRejectedValueOnce(new Error('disk full'));
    await expect(intake.submit(start('Fails', 'slack:C1:1700.9'))).rejects.toThrow('disk full');
    expect(seen.released).toBe(2);
  });

  it('asks for no worker for a follow-up gathered for a window', async () => {
    const reserve = vi.fn(() => undefined);
    const intake = new IntakeService({ store: world.store, clock: world.clock, reserveWorker: reserve, followupWindows: { slack: 5_000 } });
    await intake.submit({
      kind: 'followup',
      key: 'Later',
      source: 'slack',
      anchor: 'slack:C1:1700.1',
      payload: { message: 'and the docs', reference: { ts: '1' } },
    });
    expect(reserve).not.toHaveBeenCalled();
    expect(await world.store.triggers.getByKey('Later')).toMatchObject({ state: 'pending' });
  });

  it('keeps its lease while the pass waits, and is given back pending when the pass never comes', async () => {
    const { taker } = takerFor(first);
    await service(() => taker).submit(start('Waiting'));
    // Two leases later (the pass held at the work gate): renewed, so no other worker may claim it.
    await world.clock.advance(2 * LEASE);
    expect(await world.store.triggers.claimNext('host:1:w2', world.clock.now(), LEASE)).toBeUndefined();

    await first.letGo();
    expect(first.holding).toBe(false);
    expect(await world.store.triggers.getByKey('Waiting')).toMatchObject({ state: 'pending', leaseOwner: null });
    const other = worker('host:1:w2');
    expect(await other.workOnce()).toBe(true);
    expect(await world.store.triggers.getByKey('Waiting')).toMatchObject({ state: 'done', attempts: 2 });
    // The renewal stopped with the giving back: the first worker holds nothing and writes nothing more.
    await world.clock.advance(2 * LEASE);
    expect(await first.workOnce()).toBe(false);
  });

  it('refuses a second trigger for a worker that already holds one', async () => {
    const { taker } = takerFor(first);
    await service(() => taker).submit(start('One', 'slack:C1:1'));
    const trigger = await world.store.triggers.getByKey('One');
    expect(() => first.hold(trigger as StoredTrigger)).toThrow(/already holds/);
  });
});
