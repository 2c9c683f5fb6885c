import { afterEach, expect, it, vi } from 'vitest';
import { useIntakeWorld, worldWorker } from '../../test/core/intake-harness.js';
import { slackStart as start } from '../../test/helpers/slack-start.js';
import { IntakeService } from '../core/intake/intake-service.js';
import { IntakeWorker } from '../core/intake/intake-worker.js';
import { OutboxWorker } from '../core/outbox/outbox-worker.js';
import type { Delivery } from '../core/ports/notifier.js';
import type { Liveness } from '../core/liveness/liveness.js';
import { silentLogger } from '../core/ports/logger.js';
import type { Scheduler } from '../core/schedules/scheduler.js';
import type { Tracker } from '../core/tracker/tracker.js';
import { startWorkLoops, type WorkLoops } from './work-loops.js';

/** The work loops' side of handing a trigger, or its first message, over as it is stored (`freeWorkers`). */
const DAY = 86_400_000;
const world = useIntakeWorld('loops-hand-over-key', { resetEach: true });
let loops: WorkLoops | undefined;
afterEach(async () => {
  await loops?.stop();
  loops = undefined;
});

function startLoops(workers: number, senders: OutboxWorker[] = []): { loops: WorkLoops; workers: IntakeWorker[] } {
  const intake = Array.from({ length: workers }, (_, index) => worldWorker(world, `host:1:intake-${index}`));
  loops = startWorkLoops({
    store: world.store,
    clock: world.clock,
    logger: silentLogger,
    intake,
    outbox: senders,
    tracker: { tick: async () => ({ changed: 0 }), release: async () => {} } as unknown as Tracker,
    scheduler: { check: async () => {} } as unknown as Scheduler,
    liveness: { beatMs: DAY, beat: async () => [] } as unknown as Liveness,
    intervals: { trackerMs: DAY, dedupeRetentionMs: DAY, auditRetentionMs: DAY },
  });
  return { loops, workers: intake };
}

/** Lets the loops' first passes (each a claim that finds nothing) end: a few turns of the event loop, no time. */
async function settle(): Promise<void> {
  for (let turn = 0; turn < 10; turn++) await new Promise((resolve) => setImmediate(resolve));
}

it('reserves each free worker for one trigger at a time, and frees it when the store keeps the trigger', async () => {
  const { loops } = startLoops(2);
  await settle();
  const first = loops.freeWorkers.intake();
  const second = loops.freeWorkers.intake();
  expect([first?.owner, second?.owner]).toEqual(['host:1:intake-0', 'host:1:intake-1']);
  expect(loops.freeWorkers.intake()).toBeUndefined();
  first?.release();
  expect(loops.freeWorkers.intake()?.owner).toBe('host:1:intake-0');
});

it('works a trigger handed to a loop in the pass it wakes, without a claim', async () => {
  const { loops } = startLoops(2);
  await settle();
  const claims = vi.spyOn(world.store.triggers, 'claimNext');
  const intake = new IntakeService({
    store: world.store,
    clock: world.clock,
    freeWorkers: loops.freeWorkers,
  });
  await intake.submit(start('Loop1', 'slack:C1:1'));
  await vi.waitFor(async () => expect(await world.store.triggers.getByKey('Loop1')).toMatchObject({ state: 'done', attempts: 1 }));
  expect(claims).not.toHaveBeenCalled();
});

it('gives a handed trigger back, pending, when the loops stop before its pass', async () => {
  const { loops, workers } = startLoops(1);
  await settle();
  const intake = new IntakeService({
    store: world.store,
    clock: world.clock,
    freeWorkers: loops.freeWorkers,
  });
  await intake.submit(start('Stopped', 'slack:C1:2'));
  expect(workers[0]?.hasWorkWaiting).toBe(true);
  // In the same turn: the pass the hand-over woke has not started.
  await loops.stop();
  expect(workers[0]?.hasWorkWaiting).toBe(false);
  expect(await world.store.triggers.getByKey('Stopped')).toMatchObject({ state: 'pending', leaseOwner: null });
  expect(loops.freeWorkers.intake()).toBeUndefined();
});

function sender(owner: string, delivered: Delivery[]): OutboxWorker {
  const notifier = { platform: 'slack', deliver: async (delivery: Delivery) => void delivered.push(delivery) };
  return new OutboxWorker({ store: world.store, notifiers: [notifier], clock: world.clock, logger: silentLogger, owner });
}

it('delivers the message handed to an outbox loop in the pass it wakes, without a claim', async () => {
  const delivered: Delivery[] = [];
  const { loops } = startLoops(1, [sender('host:1:outbox-0', delivered), sender('host:1:outbox-1', delivered)]);
  await settle();
  const claims = vi.spyOn(world.store.outbox, 'claimNext');
  const intake = new IntakeService({
    store: world.store,
    clock: world.clock,
    freeWorkers: { intake: () => undefined, outbox: () => loops.freeWorkers.outbox() },
  });
  await intake.submit(start('Sent1', 'slack:C1:3'));
  await vi.waitFor(() => expect(delivered.map((delivery) => delivery.destination)).toEqual(['slack:C1:3']));
  expect(claims).not.toHaveBeenCalled();
});

it('gives a handed message back, pending, when the loops stop before its pass', async () => {
  const senders = [sender('host:1:outbox-0', [])];
  const { loops } = startLoops(1, senders);
  await settle();
  const intake = new IntakeService({
    store: world.store,
    clock: world.clock,
    freeWorkers: { intake: () => undefined, outbox: () => loops.freeWorkers.outbox() },
  });
  await intake.submit(start('Unsent1', 'slack:C1:4'));
  expect(senders[0]?.hasWorkWaiting).toBe(true);
  await loops.stop();
  expect(senders[0]?.hasWorkWaiting).toBe(false);
  expect((await world.store.outbox.list()).map((row) => [row.destination, row.state, row.leaseOwner])).toEqual([['slack:C1:4', 'pending', null]]);
  expect(loops.freeWorkers.outbox()).toBeUndefined();
});
