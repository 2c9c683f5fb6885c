import { beforeEach, describe, expect, it, vi } from 'vitest';
import { useIntakeWorld, worldWorker } from '../../../test/core/intake-harness.js';
import { slackStart as start } from '../../../test/helpers/slack-start.js';
import { silentLogger } from '../ports/logger.js';
import type { StoredTrigger } from '../ports/store.js';
import { IntakeService } from '../intake/intake-service.js';
import { IntakeWorker } from '../intake/intake-worker.js';
import type { FreeWorkerSource, TriggerTaker } from './hand-over.js';
import { OutboxWorker } from '../outbox/outbox-worker.js';
import type { Delivery } from '../ports/notifier.js';
import { receivedKey } from '../ports/messages.js';
import type { OutboxRow } from '../ports/store.js';

/**
 * A trigger handed over to a free worker in the commit that stores it (`TriggerTaker`): worked without
 * a claim, and given back when its pass never comes. The store's side is in trigger-repository.test.ts.
 */
const API_KEY = 'hand-over-key';
const LEASE = 30_000;
const world = useIntakeWorld(API_KEY, { resetEach: true });

const worker = (owner: string): IntakeWorker => worldWorker(world, owner, { retryWindowMs: 60_000, leaseMs: LEASE });

/** A taker over `target` that records what happened to it, as the loops' reservations do (loop-reservations.ts). */
function takerFor<T extends StoredTrigger | OutboxRow>(target: { owner: string; leaseMs: number; take(handed: T): void }) {
  const seen = { taken: [] as T[], released: 0 };
  const taker = {
    owner: target.owner,
    leaseMs: target.leaseMs,
    take: (handed: T) => {
      seen.taken.push(handed);
      target.take(handed);
    },
    release: () => void seen.released++,
  };
  return { taker, seen };
}

function outboxWorker(owner: string, delivered: Delivery[]): OutboxWorker {
  const notifier = { platform: 'slack', deliver: async (delivery: Delivery) => void delivered.push(delivery) };
  return new OutboxWorker({ store: world.store, notifiers: [notifier], clock: world.clock, logger: silentLogger, owner, options: { leaseMs: LEASE } });
}

describe('a trigger handed over to a free worker as it is stored', () => {
  let stored: number;
  let owed: number;
  let first: IntakeWorker;
  beforeEach(() => {
    stored = 0;
    owed = 0;
    first = worker('host:1:w1');
  });
  const service = (reserve: () => TriggerTaker | undefined) =>
    new IntakeService({
      store: world.store,
      clock: world.clock,
      onStored: () => stored++,
      onOwed: () => owed++,
      freeWorkers: { intake: reserve, outbox: () => undefined },
    });

  it('is worked by that worker without a claim, and wakes no other worker', async () => {
    const { taker, seen } = takerFor(first);
    const claims = vi.spyOn(world.store.triggers, 'claimNext');
    await service(() => taker).submit(start('Hand1'));
    expect(seen.taken.map((trigger) => trigger.key)).toEqual(['Hand1']);
    // Only the message it owes is left to a wake-up: no outbox worker was free for it.
    expect([stored, owed]).toEqual([0, 1]);
    expect(first.hasWorkWaiting).toBe(true);

    expect(await first.workOnce()).toBe(true);
    expect(claims).not.toHaveBeenCalled();
    const done = await world.store.triggers.getByKey('Hand1');
    expect(done).toMatchObject({ state: 'done', attempts: 1 });
    expect(done?.runId).toBeTruthy();
    expect(first.hasWorkWaiting).toBe(false);
  });

  it('frees the worker and wakes the others when the store keeps it pending (an earlier trigger of its anchor)', async () => {
    await world.store.triggers.enqueue({ trigger: { ...start('Ahead'), key: 'Ahead' }, now: world.clock.now() });
    const { taker, seen } = takerFor(first);
    const result = await service(() => taker).submit(start('Behind'));
    expect(result.accepted).toBe(true);
    expect(seen).toEqual({ taken: [], released: 1 });
    expect([stored, owed]).toEqual([1, 0]);
    expect(first.hasWorkWaiting).toBe(false);
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
    const freeWorkers: FreeWorkerSource = { intake: reserve, outbox: reserve };
    const intake = new IntakeService({ store: world.store, clock: world.clock, freeWorkers, followupWindows: { slack: 5_000 } });
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
    // Two leases later (the pass waiting at the work gate): renewed, so no other worker may claim it.
    await world.clock.advance(2 * LEASE);
    expect(await world.store.triggers.claimNext('host:1:w2', world.clock.now(), LEASE)).toBeUndefined();

    await first.letGo();
    expect(first.hasWorkWaiting).toBe(false);
    expect(await world.store.triggers.getByKey('Waiting')).toMatchObject({ state: 'pending', leaseOwner: null });
    const other = worker('host:1:w2');
    expect(await other.workOnce()).toBe(true);
    expect(await world.store.triggers.getByKey('Waiting')).toMatchObject({ state: 'done', attempts: 2 });
    // The renewal stopped with the giving back: the first worker has nothing waiting and writes nothing more.
    await world.clock.advance(2 * LEASE);
    expect(await first.workOnce()).toBe(false);
  });

  it('hands its first message over to a free outbox worker too: delivered without a claim, nothing woken', async () => {
    const delivered: Delivery[] = [];
    const sender = outboxWorker('host:1:o1', delivered);
    const trigger = takerFor(first);
    const row = takerFor(sender);
    const intake = new IntakeService({
      store: world.store,
      clock: world.clock,
      onStored: () => stored++,
      onOwed: () => owed++,
      freeWorkers: { intake: () => trigger.taker, outbox: () => row.taker },
    });
    const claims = vi.spyOn(world.store.outbox, 'claimNext');
    await intake.submit(start('Both'));
    expect(row.seen.taken.map((taken) => taken.key)).toEqual([receivedKey('Both', 'slack:C1:1700.1')]);
    expect([stored, owed]).toEqual([0, 0]);
    expect(sender.hasWorkWaiting).toBe(true);

    expect(await sender.deliverOnce()).toBe(true);
    expect(claims).not.toHaveBeenCalled();
    expect(delivered.map((delivery) => [delivery.key, delivery.attempt])).toEqual([[receivedKey('Both', 'slack:C1:1700.1'), 0]]);
    expect(await world.store.outbox.getByKey(receivedKey('Both', 'slack:C1:1700.1'))).toMatchObject({ state: 'sent', attempts: 1 });
    expect(sender.hasWorkWaiting).toBe(false);
  });

  it('frees the outbox worker and wakes the others when the message waits behind another of its place', async () => {
    await world.store.outbox.add(
      [{ key: 'earlier', destination: 'slack:C1:1700.1', kind: 'notice', payload: { kind: 'notice', text: 'hi' } }],
      world.clock.now(),
    );
    const sender = outboxWorker('host:1:o1', []);
    const row = takerFor(sender);
    const intake = new IntakeService({
      store: world.store,
      clock: world.clock,
      onOwed: () => owed++,
      freeWorkers: { intake: () => undefined, outbox: () => row.taker },
    });
    await intake.submit(start('Queued'));
    expect(row.seen).toEqual({ taken: [], released: 1 });
    expect(sender.hasWorkWaiting).toBe(false);
  });

  it('gives a message handed over back, pending, when its pass never comes; its lease renewed meanwhile', async () => {
    const delivered: Delivery[] = [];
    const sender = outboxWorker('host:1:o1', delivered);
    const row = takerFor(sender);
    const intake = new IntakeService({ store: world.store, clock: world.clock, freeWorkers: { intake: () => undefined, outbox: () => row.taker } });
    await intake.submit(start('Unsent'));
    await world.clock.advance(2 * LEASE);
    expect(await world.store.outbox.claimNext('host:1:o2', world.clock.now(), LEASE)).toBeUndefined();
    await sender.letGo();
    expect(await world.store.outbox.getByKey(receivedKey('Unsent', 'slack:C1:1700.1'))).toMatchObject({ state: 'pending', leaseOwner: null });
    const other = outboxWorker('host:1:o2', delivered);
    expect(await other.deliverOnce()).toBe(true);
    expect(delivered.map((delivery) => delivery.key)).toEqual([receivedKey('Unsent', 'slack:C1:1700.1')]);
  });

  it('refuses a second trigger for a worker that already has one waiting', async () => {
    const { taker } = takerFor(first);
    await service(() => taker).submit(start('One', 'slack:C1:1'));
    const trigger = await world.store.triggers.getByKey('One');
    expect(() => first.take(trigger as StoredTrigger)).toThrow(/worker host:1:w1 already has trigger One waiting/);
  });
});
