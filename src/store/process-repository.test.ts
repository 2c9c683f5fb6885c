import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { aTrigger, anOutboxRow } from '../../test/store/helpers.js';
import { processOfOwner, workerOwner, type Store } from '../core/ports/store.js';
import { describeEachStore } from '../../test/store/adapters.js';

/*
 * Liveness of claims: a claim is free once its lease ran out, or at once when the process
 * holding it stopped or missed its heartbeats; while the holder beats, nobody else gets it.
 */

const LONG = 60_000;
const TTL = 6_000;
const A = { id: 'host-a:10:aaaa', host: 'host-a', pid: 10 };
const B = { id: 'host-b:20:bbbb', host: 'host-b', pid: 20 };

describeEachStore((adapter) => {
  let store: Store;
  beforeEach(async () => {
    store = await adapter.open();
  });
  afterEach(async () => {
    await store.close();
  });

  describe('owners', () => {
    it.each([
      ['host:1:ab', 'host:1:ab'],
      ['host:1:ab/outbox-3', 'host:1:ab'],
      [workerOwner('host:1:ab', 'outbox-0'), 'host:1:ab'],
      ['w1', 'w1'],
    ])('%s belongs to process %s', (owner, process) => {
      expect(processOfOwner(owner)).toBe(process);
    });
  });

  describe('processes', () => {
    it('register with a heartbeat, stay alive while they beat, and say when they stopped', async () => {
      await store.processes.heartbeat(A, 1_000, TTL);
      await store.processes.heartbeat(A, 3_000, TTL);
      expect(await store.processes.listRunning('host-a')).toEqual([
        { id: A.id, host: 'host-a', pid: 10, startedAt: 1_000, heartbeatAt: 3_000, aliveUntil: 3_000 + TTL, stoppedAt: null },
      ]);
      await store.processes.markStopped(A.id, 4_000);
      expect(await store.processes.listRunning('host-a')).toEqual([]);
      expect(await store.processes.list(10)).toMatchObject([{ id: A.id, aliveUntil: 4_000, stoppedAt: 4_000 }]);
    });

    it('are reaped once, by one caller, when their heartbeat ran out', async () => {
      await store.processes.heartbeat(A, 0, TTL);
      await store.processes.heartbeat(B, 0, TTL);
      await store.processes.heartbeat(B, 5_000, TTL);
      expect(await store.processes.reap(TTL - 1)).toEqual([]);
      expect(await store.processes.reap(TTL)).toEqual([A.id]);
      expect(await store.processes.reap(TTL + 1)).toEqual([]);
      expect((await store.processes.listRunning('host-b')).map((p) => p.id)).toEqual([B.id]);
    });

    it('come back alive when a reaped process beats again (a long pause, not a crash)', async () => {
      await store.processes.heartbeat(A, 0, TTL);
      expect(await store.processes.reap(10_000)).toEqual([A.id]);
      await store.processes.heartbeat(A, 11_000, TTL);
      expect(await store.processes.listRunning('host-a')).toMatchObject([{ id: A.id, startedAt: 0, stoppedAt: null, aliveUntil: 11_000 + TTL }]);
    });

    it('are pruned once stopped or silent for long, never while alive', async () => {
      await store.processes.heartbeat(A, 0, TTL);
      await store.processes.heartbeat(B, 0, TTL);
      await store.processes.markStopped(B.id, 1_000);
      await store.processes.heartbeat({ id: 'c', host: 'host-c', pid: 3 }, 100_000, TTL);
      expect(await store.processes.prune(50_000)).toBe(2);
      expect((await store.processes.list(10)).map((p) => p.id)).toEqual(['c']);
    });
  });

  describe('a trigger claimed by a registered process', () => {
    beforeEach(async () => {
      await store.processes.heartbeat(A, 0, TTL);
      await store.triggers.enqueue({ trigger: aTrigger({ key: 't1' }), now: 0 });
      expect(await store.triggers.claimNext(A.id, 0, LONG)).toMatchObject({ key: 't1', leaseOwner: A.id });
    });

    it('is not taken over while the process beats', async () => {
      for (let now = 2_000; now < 30_000; now += 2_000) {
        await store.processes.heartbeat(A, now, TTL);
        expect(await store.triggers.claimNext(B.id, now + 1, LONG)).toBeUndefined();
      }
    });

    it('is free once the process missed its beats, long before the lease ends', async () => {
      await store.processes.heartbeat(A, 2_000, TTL);
      expect(await store.triggers.claimNext(B.id, 2_000 + TTL - 1, LONG)).toBeUndefined();
      const taken = await store.triggers.claimNext(B.id, 2_000 + TTL, LONG);
      expect(taken).toMatchObject({ key: 't1', leaseOwner: B.id, attempts: 2 });
      // The old holder's guarded writes fail: the claim is B's now.
      expect(await store.triggers.extendLease(taken!.id, A.id, 2_000 + TTL, LONG)).toBe(false);
    });

    it('is free at once when the process stopped cleanly', async () => {
      await store.processes.markStopped(A.id, 1_000);
      expect(await store.triggers.claimNext(B.id, 1_000, LONG)).toMatchObject({ key: 't1', leaseOwner: B.id });
    });

    it('is free when its lease ran out, even while the process beats (work that takes long renews it)', async () => {
      await store.processes.heartbeat(A, LONG, TTL);
      expect(await store.triggers.claimNext(B.id, LONG, LONG)).toMatchObject({ key: 't1', leaseOwner: B.id });
    });

    it('stays with its holder while a renewed lease and the heartbeat both hold', async () => {
      for (let now = 10_000; now <= 3 * LONG; now += 10_000) {
        await store.processes.heartbeat(A, now, TTL);
        expect(await store.triggers.extendLease(1, A.id, now, LONG)).toBe(true);
        expect(await store.triggers.claimNext(B.id, now + 1, LONG)).toBeUndefined();
      }
    });
  });

  describe('a trigger claimed by an unregistered owner', () => {
    it('keeps the plain lease (tests, the CLI, claims made before the upgrade)', async () => {
      await store.triggers.enqueue({ trigger: aTrigger({ key: 't1' }), now: 0 });
      await store.triggers.claimNext('w1', 0, 1_000);
      await store.processes.reap(500);
      expect(await store.triggers.claimNext('w2', 999, 1_000)).toBeUndefined();
      expect(await store.triggers.claimNext('w2', 1_000, 1_000)).toMatchObject({ leaseOwner: 'w2' });
    });
  });

  describe('an outbox row claimed by a worker of a registered process', () => {
    const worker = workerOwner(A.id, 'outbox-4');

    beforeEach(async () => {
      await store.processes.heartbeat(A, 0, TTL);
      await store.outbox.add([anOutboxRow('o1')], 0);
      expect(await store.outbox.claimNext(worker, 0, LONG)).toMatchObject({ key: 'o1', leaseOwner: worker });
    });

    it('is not taken over while the process beats', async () => {
      for (let now = 2_000; now < 30_000; now += 2_000) {
        await store.processes.heartbeat(A, now, TTL);
        expect(await store.outbox.claimNext(workerOwner(B.id, 'outbox-0'), now + 1, LONG)).toBeUndefined();
      }
    });

    it('is free once the process missed its beats', async () => {
      const other = workerOwner(B.id, 'outbox-0');
      expect(await store.outbox.claimNext(other, TTL - 1, LONG)).toBeUndefined();
      expect(await store.outbox.claimNext(other, TTL, LONG)).toMatchObject({ key: 'o1', leaseOwner: other, attempts: 2 });
      expect(await store.outbox.markSent(1, worker, {}, TTL)).toBe(false);
    });

    it('is free at once when the process stopped cleanly', async () => {
      await store.processes.markStopped(A.id, 100);
      expect(await store.outbox.claimNext(B.id, 100, LONG)).toMatchObject({ key: 'o1', leaseOwner: B.id });
    });
  });

  describe('the work a dead process held', () => {
    const intake = (id: string, index: number) => workerOwner(id, `intake-${index}`);
    const outbox = (id: string, index: number) => workerOwner(id, `outbox-${index}`);

    beforeEach(async () => {
      await store.processes.heartbeat(A, 0, TTL);
      await store.processes.heartbeat(B, 0, TTL);
    });

    it('is taken over by a chain of claims: each one that takes a trigger over says another is due', async () => {
      for (const [index, key] of ['t1', 't2', 't3'].entries()) {
        await store.triggers.enqueue({ trigger: aTrigger({ key, anchor: `slack:C1:${key}` }), now: 0 });
        await store.triggers.claimNext(intake(A.id, index), 0, LONG);
      }
      // A stops beating; B goes on. Nothing pending: only A's abandoned triggers are due.
      await store.processes.heartbeat(B, TTL, TTL);
      expect(await store.triggers.claimNext(intake(B.id, 0), TTL, LONG)).toMatchObject({ key: 't1', moreDue: true });
      expect(await store.triggers.claimNext(intake(B.id, 1), TTL, LONG)).toMatchObject({ key: 't2', moreDue: true });
      expect(await store.triggers.claimNext(intake(B.id, 2), TTL, LONG)).toMatchObject({ key: 't3', moreDue: false });
    });

    it('is taken over by a chain of claims: each one that takes a delivery over says another is due', async () => {
      await store.outbox.add([anOutboxRow('o1', 'slack:C1:1'), anOutboxRow('o2', 'slack:C1:2'), anOutboxRow('o3', 'slack:C1:3')], 0);
      for (let index = 0; index < 3; index++) await store.outbox.claimNext(outbox(A.id, index), 0, LONG);
      await store.processes.markStopped(A.id, 1_000);
      expect(await store.outbox.claimNext(outbox(B.id, 0), 1_000, LONG)).toMatchObject({ key: 'o1', moreDue: true });
      expect(await store.outbox.claimNext(outbox(B.id, 1), 1_000, LONG)).toMatchObject({ key: 'o2', moreDue: true });
      expect(await store.outbox.claimNext(outbox(B.id, 2), 1_000, LONG)).toMatchObject({ key: 'o3', moreDue: false });
    });

    it('a trigger whose lease ran out counts as due too, though its process beats', async () => {
      await store.triggers.enqueue({ trigger: aTrigger({ key: 'later', anchor: 'slack:C1:later' }), now: 0, dueAt: 1_000 });
      await store.triggers.enqueue({ trigger: aTrigger({ key: 'held', anchor: 'slack:C1:held' }), now: 0 });
      await store.triggers.claimNext(intake(A.id, 0), 0, 1_000);
      // A beats and its lease holds: nothing is due.
      expect(await store.triggers.claimNext(intake(B.id, 0), 999, LONG)).toBeUndefined();
      // A still beats, but its lease ran out: "later" falls due, and the claim taking it sees A's trigger due too.
      await store.processes.heartbeat(A, 1_000, TTL);
      expect(await store.triggers.claimNext(intake(B.id, 0), 1_000, LONG)).toMatchObject({ key: 'later', moreDue: true });
      expect(await store.triggers.claimNext(intake(B.id, 1), 1_000, LONG)).toMatchObject({ key: 'held', moreDue: false });
    });

    it('a trigger its live holder keeps is not due: a claim beside it says nothing more is', async () => {
      await store.triggers.enqueue({ trigger: aTrigger({ key: 'held', anchor: 'slack:C1:held' }), now: 0 });
      await store.triggers.claimNext(intake(A.id, 0), 0, LONG);
      await store.triggers.enqueue({ trigger: aTrigger({ key: 'p1', anchor: 'slack:C1:p1' }), now: 0 });
      await store.processes.heartbeat(A, 2_000, TTL);
      expect(await store.triggers.claimNext(intake(B.id, 0), 2_000, LONG)).toMatchObject({ key: 'p1', moreDue: false });
    });
  });

  describe('a named lease held by a registered process', () => {
    beforeEach(async () => {
      await store.processes.heartbeat(A, 0, TTL);
      expect(await store.leases.acquire('tracker', A.id, 0, LONG)).toBe(true);
    });

    it('is not taken over while the process beats', async () => {
      for (let now = 2_000; now < 30_000; now += 2_000) {
        await store.processes.heartbeat(A, now, TTL);
        expect(await store.leases.acquire('tracker', B.id, now + 1, LONG)).toBe(false);
      }
    });

    it('is free once the process missed its beats, or stopped', async () => {
      expect(await store.leases.acquire('tracker', B.id, TTL - 1, LONG)).toBe(false);
      expect(await store.leases.acquire('tracker', B.id, TTL, LONG)).toBe(true);
      // Now B's: A, beating again, does not get it back until B is gone.
      await store.processes.heartbeat(A, TTL + 1, TTL);
      await store.processes.heartbeat(B, TTL + 1, TTL);
      expect(await store.leases.acquire('tracker', A.id, TTL + 2, LONG)).toBe(false);
      await store.processes.markStopped(B.id, TTL + 3);
      expect(await store.leases.acquire('tracker', A.id, TTL + 3, LONG)).toBe(true);
    });
  });
});
