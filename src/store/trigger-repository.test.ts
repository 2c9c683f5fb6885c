import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { aRun, aTrigger, anOutboxRow } from '../../test/store/helpers.js';
import type { Store } from '../core/ports/store.js';
import { describeEachStore } from '../../test/store/adapters.js';

describeEachStore((adapter) => {
  let store: Store;
  beforeEach(async () => {
    store = await adapter.open();
  });
  afterEach(async () => {
    await store.close();
  });

  const LEASE = 30_000;

  describe('triggers.enqueue', () => {
    it('stores a burst submitted in one turn together: each key once, each caller told its own result', async () => {
      const keys = Array.from({ length: 60 }, (_, index) => `Burst${index % 40}`);
      const results = await Promise.all(
        keys.map((key) => store.triggers.enqueue({ trigger: aTrigger({ key }), owed: [anOutboxRow(`${key}:received`)], now: 1000 })),
      );
      expect(results.filter((result) => result.inserted)).toHaveLength(40);
      expect(results.map((result) => result.trigger.key)).toEqual(keys);
      // The 20 repeats got the trigger the first submission stored, not a new one.
      expect(results.slice(40).every((result, index) => !result.inserted && result.trigger.id === results[index]!.trigger.id)).toBe(true);
      expect(await store.outbox.list()).toHaveLength(40);
    });

    it('keeps a burst in the order submitted: rising ids, and a repeated key owes only its first submission rows', async () => {
      const burst = [
        store.triggers.enqueue({ trigger: aTrigger({ key: 'Ord2', anchor: 'A' }), owed: [anOutboxRow('Ord2:received', 'A')], now: 1000 }),
        store.triggers.enqueue({ trigger: aTrigger({ key: 'Ord1', anchor: 'A' }), owed: [anOutboxRow('Ord1:received', 'A')], now: 1000 }),
        store.triggers.enqueue({ trigger: aTrigger({ key: 'Ord2', anchor: 'A' }), owed: [anOutboxRow('Ord2:again', 'A')], now: 1000 }),
        store.triggers.enqueue({
          trigger: aTrigger({ key: 'Ord3', anchor: 'B' }),
          owed: [anOutboxRow('Ord3:received', 'B'), anOutboxRow('Ord3:second', 'B')],
          now: 1000,
        }),
      ];
      const results = await Promise.all(burst);
      expect(results.map((result) => result.inserted)).toEqual([true, true, false, true]);
      const ids = results.map((result) => result.trigger.id);
      expect(ids[0]).toBeLessThan(ids[1]!);
      expect(ids[1]).toBeLessThan(ids[3]!);
      expect((await store.outbox.list()).map((row) => row.key)).toEqual(['Ord2:received', 'Ord1:received', 'Ord3:received', 'Ord3:second']);
      expect((await store.triggers.claimNext('w1', 1000, LEASE))?.key).toBe('Ord2');
    });

    it('one bad trigger in a burst fails only its own caller', async () => {
      const good = store.triggers.enqueue({ trigger: aTrigger({ key: 'Good1' }), now: 1000 });
      const bad = store.triggers.enqueue({
        trigger: aTrigger({ key: 'Bad1' }),
        owed: [{ ...anOutboxRow('Bad1:received'), destination: null as unknown as string }],
        now: 1000,
      });
      const alsoGood = store.triggers.enqueue({ trigger: aTrigger({ key: 'Good2' }), now: 1000 });
      await expect(bad).rejects.toThrow();
      expect((await good).inserted).toBe(true);
      expect((await alsoGood).inserted).toBe(true);
      expect(await store.triggers.getByKey('Bad1')).toBeUndefined();
    });

    it('remembers the given event keys in the same transaction, new trigger or not', async () => {
      await store.triggers.enqueue({ trigger: aTrigger({ key: 'Ev9' }), now: 1000, rememberKeys: ['linear:delivery:d1'] });
      await store.triggers.enqueue({ trigger: aTrigger({ key: 'Ev9' }), now: 1000, rememberKeys: ['linear:delivery:d2'] });
      expect(await store.eventKeys.has('linear:delivery:d1')).toBe(true);
      expect(await store.eventKeys.has('linear:delivery:d2')).toBe(true);
    });

    it('stores a new trigger with its owed outbox rows', async () => {
      const { inserted, trigger } = await store.triggers.enqueue({ trigger: aTrigger(), owed: [anOutboxRow('Ev001:received')], now: 1000 });
      expect(inserted).toBe(true);
      expect(trigger).toMatchObject({
        key: 'Ev001',
        kind: 'start',
        source: 'slack',
        anchor: 'slack:C1:1700.1',
        payload: aTrigger().payload,
        state: 'pending',
        attempts: 0,
        nextAttemptAt: 1000,
        leaseOwner: null,
        leaseUntil: null,
        createAttemptedAt: null,
        runId: null,
        lastError: null,
        receivedAt: 1000,
        updatedAt: 1000,
      });
      expect(await store.outbox.list()).toHaveLength(1);
      expect(await store.triggers.get(trigger.id)).toEqual(trigger);
      expect(await store.triggers.getByKey('Ev001')).toEqual(trigger);
    });

    it('stores a key once and adds its owed rows once', async () => {
      const first = await store.triggers.enqueue({ trigger: aTrigger(), owed: [anOutboxRow('Ev001:received')], now: 1000 });
      const again = await store.triggers.enqueue({
        trigger: aTrigger({ payload: { prompt: 'retried', title: 'retried', origin: { source: 'cli' }, destinations: ['slack:C1:1700.1'] } }),
        owed: [anOutboxRow('Ev001:received'), anOutboxRow('Ev001:other')],
        now: 2000,
      });
      expect(again.inserted).toBe(false);
      expect(again.trigger).toEqual(first.trigger);
      expect((await store.outbox.list()).map((r) => r.key)).toEqual(['Ev001:received']);
      expect(await store.triggers.countByState()).toEqual({ pending: 1, working: 0, done: 0, failed: 0, ignored: 0 });
    });

    it('commits a batch when its group commit comes: triggers enqueued in later turns join it', async () => {
      const commits: Array<() => void> = [];
      const deferred = await adapter.open({ groupCommit: (commit) => void commits.push(commit) });
      try {
        const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
        const first = deferred.triggers.enqueue({ trigger: aTrigger({ key: 'Group1' }), owed: [anOutboxRow('Group1:received')], now: 1000 });
        await nextTurn();
        const second = deferred.triggers.enqueue({ trigger: aTrigger({ key: 'Group2' }), now: 1000 });
        await nextTurn();
        expect(commits).toHaveLength(1);
        expect(await deferred.triggers.getByKey('Group1')).toBeUndefined();
        commits[0]?.();
        expect((await Promise.all([first, second])).map((result) => result.inserted)).toEqual([true, true]);
        expect((await deferred.outbox.list()).map((row) => row.key)).toEqual(['Group1:received']);
        // The next trigger starts the next batch, which waits for a commit of its own.
        const third = deferred.triggers.enqueue({ trigger: aTrigger({ key: 'Group3' }), now: 1000 });
        expect(commits).toHaveLength(2);
        commits[1]?.();
        expect((await third).trigger.id).toBe(3);
      } finally {
        await deferred.close();
      }
    });

    it('answers a new trigger exactly as it reads it back', async () => {
      const { inserted, trigger } = await store.triggers.enqueue({ trigger: aTrigger({ key: 'Back1', anchor: 'slack:C1:1.2' }), now: 1000, dueAt: 1500 });
      expect(inserted).toBe(true);
      expect(trigger).toEqual(await store.triggers.get(trigger.id));
      expect(trigger).toMatchObject({ state: 'pending', attempts: 0, nextAttemptAt: 1500, receivedAt: 1000, updatedAt: 1000 });
    });

    describe('handed over to a free worker (handTo.trigger)', () => {
      const taker = { owner: 'host:1:w1', leaseMs: LEASE };
      const handTo = { trigger: taker };
      // The port's rule: only a store whose transaction sees every unfinished trigger of the anchor hands over.
      const handsOver = adapter.name === 'sqlite';

      it(handsOver ? 'stores a due trigger of a free anchor claimed by the free worker, as a claim would' : 'declines: stores it pending', async () => {
        const { inserted, handedOver, trigger } = await store.triggers.enqueue({
          trigger: aTrigger({ key: 'Hand1', anchor: 'A' }),
          owed: [anOutboxRow('Hand1:received', 'A')],
          now: 1000,
          dueAt: 1000,
          handTo,
        });
        expect(inserted).toBe(true);
        expect(store.triggers.handsOver).toBe(handsOver);
        expect(handedOver ?? false).toBe(handsOver);
        expect(trigger).toEqual(await store.triggers.get(trigger.id));
        if (!handsOver) return expect(trigger).toMatchObject({ state: 'pending', attempts: 0, leaseOwner: null });
        expect(trigger).toMatchObject({ state: 'working', attempts: 1, leaseOwner: taker.owner, leaseUntil: 1000 + LEASE, nextAttemptAt: 1000 });
        // Nothing left to claim, and the free worker's lease writes work on it.
        expect(await store.triggers.claimNext('w2', 1000, LEASE)).toBeUndefined();
        expect(await store.triggers.extendLease(trigger.id, taker.owner, 2000, LEASE)).toBe(true);
        expect(await store.triggers.finish(trigger.id, taker.owner, { state: 'done' }, {}, 3000)).toBe(true);
        expect((await store.outbox.list()).map((row) => row.key)).toEqual(['Hand1:received']);
      });

      it('keeps an anchor in order: a trigger behind an unfinished one of its anchor is stored pending', async () => {
        const first = await store.triggers.enqueue({ trigger: aTrigger({ key: 'Ahead', anchor: 'A' }), now: 1000 });
        const second = await store.triggers.enqueue({ trigger: aTrigger({ key: 'Behind', anchor: 'A' }), now: 1000, dueAt: 1000, handTo });
        const other = await store.triggers.enqueue({ trigger: aTrigger({ key: 'Elsewhere', anchor: 'B' }), now: 1000, dueAt: 1000, handTo });
        expect(second.handedOver ?? false).toBe(false);
        expect(second.trigger.state).toBe('pending');
        expect(other.handedOver ?? false).toBe(handsOver);
        // The anchor's order is the claim's: the earlier one first, the later one only once it is done.
        const claimed = await store.triggers.claimNext('w2', 1000, LEASE);
        expect(claimed?.key).toBe('Ahead');
        expect((await store.triggers.claimNext('w3', 1000, LEASE))?.key).toBe(handsOver ? undefined : 'Elsewhere');
        await store.triggers.finish(first.trigger.id, 'w2', { state: 'done' }, {}, 1100);
        expect((await store.triggers.claimNext('w4', 1100, LEASE))?.key).toBe('Behind');
      });

      it('stores pending what is due later, and hands nothing over for a known key', async () => {
        const later = await store.triggers.enqueue({ trigger: aTrigger({ key: 'Later', anchor: 'A' }), now: 1000, dueAt: 5000, handTo });
        expect(later.handedOver ?? false).toBe(false);
        expect(later.trigger).toMatchObject({ state: 'pending', nextAttemptAt: 5000 });
        await store.triggers.enqueue({ trigger: aTrigger({ key: 'Known', anchor: 'B' }), now: 1000 });
        const again = await store.triggers.enqueue({
          trigger: aTrigger({ key: 'Known', anchor: 'B' }),
          owed: [anOutboxRow('Known:again', 'B')],
          now: 1000,
          dueAt: 1000,
          handTo,
        });
        expect(again).toMatchObject({ inserted: false, trigger: { state: 'pending', leaseOwner: null } });
        expect(again.handedOver ?? false).toBe(false);
        expect(await store.outbox.list()).toHaveLength(0);
      });
    });

    describe('its first owed row handed over to a free outbox worker (handTo.outbox)', () => {
      const rowTaker = { owner: 'host:1:o1', leaseMs: 20_000 };
      const handsOver = adapter.name === 'sqlite';

      it(handsOver ? 'stores the first row of a free destination sending, leased to it; the rest pending' : 'declines: every row pending', async () => {
        const owed = [anOutboxRow('Row1:received', 'A'), anOutboxRow('Row1:mark', 'A'), anOutboxRow('Row1:elsewhere', 'B')];
        const { handedOverRow } = await store.triggers.enqueue({
          trigger: aTrigger({ key: 'Row1', anchor: 'A' }),
          owed,
          now: 1000,
          dueAt: 1000,
          handTo: { outbox: rowTaker },
        });
        const rows = await store.outbox.list();
        if (!handsOver) {
          expect(handedOverRow).toBeUndefined();
          return expect(rows.map((row) => row.state)).toEqual(['pending', 'pending', 'pending']);
        }
        expect(handedOverRow).toEqual(await store.outbox.getByKey('Row1:received'));
        expect(handedOverRow).toMatchObject({ state: 'sending', attempts: 1, leaseOwner: rowTaker.owner, leaseUntil: 1000 + 20_000 });
        expect(rows.map((row) => [row.key, row.state])).toEqual([
          ['Row1:received', 'sending'],
          ['Row1:mark', 'pending'],
          ['Row1:elsewhere', 'pending'],
        ]);
        // The destination's order is the claim's: B's row now, A's second only after the first is sent.
        expect((await store.outbox.claimNext('o2', 1000, LEASE))?.key).toBe('Row1:elsewhere');
        expect(await store.outbox.claimNext('o3', 1000, LEASE)).toBeUndefined();
        const { sent, next } = await store.outbox.markSentAndClaimNext(handedOverRow!.id, rowTaker.owner, { ts: '1' }, 1100, LEASE);
        expect(sent).toBe(true);
        expect(next?.key).toBe('Row1:mark');
      });

      it('hands over no row whose destination has one unsent, and none for a known trigger', async () => {
        await store.outbox.add([anOutboxRow('Earlier', 'A')], 900);
        const behind = await store.triggers.enqueue({
          trigger: aTrigger({ key: 'Row2', anchor: 'A' }),
          owed: [anOutboxRow('Row2:received', 'A')],
          now: 1000,
          dueAt: 1000,
          handTo: {
            outbox: rowTaker,
          },
        });
        expect(behind.handedOverRow).toBeUndefined();
        const again = await store.triggers.enqueue({
          trigger: aTrigger({ key: 'Row2', anchor: 'A' }),
          owed: [anOutboxRow('Row2:again', 'C')],
          now: 1000,
          dueAt: 1000,
          handTo: {
            outbox: rowTaker,
          },
        });
        expect(again.handedOverRow).toBeUndefined();
        expect((await store.outbox.list()).map((row) => [row.key, row.state])).toEqual([
          ['Earlier', 'pending'],
          ['Row2:received', 'pending'],
        ]);
      });
    });

    it('keeps an undefined payload as null', async () => {
      const { trigger } = await store.triggers.enqueue({ trigger: aTrigger({ payload: undefined }), now: 1 });
      expect(trigger.payload).toBeNull();
    });

    it('answers undefined for unknown ids and keys', async () => {
      expect(await store.triggers.get(42)).toBeUndefined();
      expect(await store.triggers.getByKey('nope')).toBeUndefined();
    });
  });

  describe('triggers.claimNext', () => {
    it('claims the oldest due trigger and leases it', async () => {
      await store.triggers.enqueue({ trigger: aTrigger({ key: 'a', anchor: 'A' }), now: 100 });
      await store.triggers.enqueue({ trigger: aTrigger({ key: 'b', anchor: 'B' }), now: 200 });
      const claimed = await store.triggers.claimNext('w1', 1000, LEASE);
      expect(claimed).toMatchObject({ key: 'a', state: 'working', attempts: 1, leaseOwner: 'w1', leaseUntil: 1000 + LEASE, updatedAt: 1000 });
      expect((await store.triggers.claimNext('w2', 1000, LEASE))?.key).toBe('b');
      expect(await store.triggers.claimNext('w3', 1000, LEASE)).toBeUndefined();
    });

    it('says whether another trigger was due, its anchor blocked or not, so a worker wakes another only then', async () => {
      await store.triggers.enqueue({ trigger: aTrigger({ key: 'a', anchor: 'A' }), now: 100 });
      await store.triggers.enqueue({ trigger: aTrigger({ key: 'a2', kind: 'followup', anchor: 'A' }), now: 150 });
      await store.triggers.enqueue({ trigger: aTrigger({ key: 'b', anchor: 'B' }), now: 200 });
      await store.triggers.enqueue({ trigger: aTrigger({ key: 'later', anchor: 'C' }), now: 5000 });
      expect(await store.triggers.claimNext('w1', 1000, LEASE)).toMatchObject({ key: 'a', moreDue: true });
      expect(await store.triggers.claimNext('w2', 1000, LEASE)).toMatchObject({ key: 'b', moreDue: true }); // a2, behind a
      expect(await store.triggers.claimNext('w3', 1000, LEASE)).toBeUndefined();
      const a = await store.triggers.getByKey('a');
      await store.triggers.finish(a!.id, 'w1', { state: 'done' }, {}, 1001);
      // Nothing else due: "later" is not yet, and the working "b" is not waiting.
      expect(await store.triggers.claimNext('w1', 1001, LEASE)).toMatchObject({ key: 'a2', moreDue: false });
    });

    it('skips triggers not yet due', async () => {
      await store.triggers.enqueue({ trigger: aTrigger({ key: 'later' }), now: 5000 });
      expect(await store.triggers.claimNext('w1', 4999, LEASE)).toBeUndefined();
      expect((await store.triggers.claimNext('w1', 5000, LEASE))?.key).toBe('later');
    });

    it('re-claims a working trigger once its lease expired, and the first owner loses it', async () => {
      const { trigger } = await store.triggers.enqueue({ trigger: aTrigger(), now: 0 });
      await store.triggers.claimNext('w1', 0, 100);
      expect(await store.triggers.claimNext('w2', 99, 100)).toBeUndefined();
      const again = await store.triggers.claimNext('w2', 100, 100);
      expect(again).toMatchObject({ id: trigger.id, leaseOwner: 'w2', attempts: 2, leaseUntil: 200 });

      const before = await store.triggers.get(trigger.id);
      expect(await store.triggers.markCreateAttempted(trigger.id, 'w1', 150)).toBe(false);
      expect(await store.triggers.extendLease(trigger.id, 'w1', 150, 100)).toBe(false);
      expect(await store.triggers.reschedule(trigger.id, 'w1', 500, 'boom', 150)).toBe(false);
      expect(await store.triggers.finish(trigger.id, 'w1', { state: 'done', runId: 'r1' }, { run: aRun('r1') }, 150)).toBe(false);
      expect(await store.triggers.get(trigger.id)).toEqual(before);
      expect(await store.trackedRuns.get('r1')).toBeUndefined();
    });

    it('works on one anchor in order: a later trigger waits while an earlier one is unfinished', async () => {
      const first = await store.triggers.enqueue({ trigger: aTrigger({ key: 'start', anchor: 'T1' }), now: 0 });
      await store.triggers.enqueue({ trigger: aTrigger({ key: 'reply', kind: 'followup', anchor: 'T1' }), now: 1 });
      await store.triggers.enqueue({ trigger: aTrigger({ key: 'other', anchor: 'T2' }), now: 2 });

      expect((await store.triggers.claimNext('w1', 10, LEASE))?.key).toBe('start');
      expect((await store.triggers.claimNext('w2', 10, LEASE))?.key).toBe('other'); // T1's reply waits
      expect(await store.triggers.claimNext('w3', 10, LEASE)).toBeUndefined();

      // Rescheduled into the future, the start still holds its anchor.
      await store.triggers.reschedule(first.trigger.id, 'w1', 1000, 'run API 503', 20);
      expect(await store.triggers.claimNext('w3', 20, LEASE)).toBeUndefined();

      const again = await store.triggers.claimNext('w1', 1000, LEASE);
      expect(again?.key).toBe('start');
      await store.triggers.finish(first.trigger.id, 'w1', { state: 'failed', error: 'gave up' }, {}, 1001);
      expect((await store.triggers.claimNext('w3', 1001, LEASE))?.key).toBe('reply');
    });
  });

  describe('triggers under lease', () => {
    it('marks create attempted and extends the lease for the owner', async () => {
      const { trigger } = await store.triggers.enqueue({ trigger: aTrigger(), now: 0 });
      await store.triggers.claimNext('w1', 0, 100);
      expect(await store.triggers.markCreateAttempted(trigger.id, 'w1', 50)).toBe(true);
      expect(await store.triggers.extendLease(trigger.id, 'w1', 60, 100)).toBe(true);
      expect(await store.triggers.get(trigger.id)).toMatchObject({ createAttemptedAt: 50, leaseUntil: 160, updatedAt: 60 });
      expect(await store.triggers.claimNext('w2', 150, 100)).toBeUndefined();
    });

    it('refuses writes for a trigger that is not working', async () => {
      const { trigger } = await store.triggers.enqueue({ trigger: aTrigger(), now: 0 });
      expect(await store.triggers.markCreateAttempted(trigger.id, 'w1', 1)).toBe(false);
      expect(await store.triggers.finish(trigger.id, 'w1', { state: 'done' }, {}, 1)).toBe(false);
      expect(await store.triggers.extendLease(999, 'w1', 1, 10)).toBe(false);
    });

    it('reschedules: back to pending, lease cleared, due later, error kept', async () => {
      const { trigger } = await store.triggers.enqueue({ trigger: aTrigger(), now: 0 });
      await store.triggers.claimNext('w1', 0, 100);
      expect(await store.triggers.reschedule(trigger.id, 'w1', 5000, '429 capacity', 10)).toBe(true);
      expect(await store.triggers.get(trigger.id)).toMatchObject({
        state: 'pending',
        leaseOwner: null,
        leaseUntil: null,
        nextAttemptAt: 5000,
        lastError: '429 capacity',
        attempts: 1,
      });
      expect(await store.triggers.claimNext('w2', 4999, 100)).toBeUndefined();
      expect(await store.triggers.claimNext('w2', 5000, 100)).toMatchObject({ attempts: 2, leaseOwner: 'w2' });
    });

    it('keeps the request’s trace with the trigger and the intake’s with the run it starts (migration 17)', async () => {
      const request = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
      const intake = '00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01';
      const { trigger } = await store.triggers.enqueue({ trigger: aTrigger(), now: 0, traceparent: request });
      expect(trigger.traceparent).toBe(request);
      expect((await store.triggers.claimNext('w1', 0, 100))?.traceparent).toBe(request);
      await store.triggers.finish(trigger.id, 'w1', { state: 'done', runId: 'r1' }, { run: { ...aRun('r1'), traceparent: intake } }, 50);
      expect((await store.triggers.get(trigger.id))?.traceparent).toBe(request);
      expect((await store.trackedRuns.get('r1'))?.traceparent).toBe(intake);
    });

    it('finishes with every effect in one go', async () => {
      const { trigger } = await store.triggers.enqueue({ trigger: aTrigger(), now: 0 });
      await store.triggers.claimNext('w1', 0, 100);
      const ok = await store.triggers.finish(
        trigger.id,
        'w1',
        { state: 'done', runId: 'r1' },
        {
          run: aRun('r1'),
          link: { anchor: 'slack:C1:1700.1', runId: 'r1' },
          owed: [anOutboxRow('r1:0:slack:C1:1700.1')],
        },
        50,
      );
      expect(ok).toBe(true);
      expect(await store.triggers.get(trigger.id)).toMatchObject({ state: 'done', runId: 'r1', leaseOwner: null, leaseUntil: null, updatedAt: 50 });
      expect(await store.trackedRuns.get('r1')).toEqual({
        ...aRun('r1'),
        transition: 0,
        tracked: true,
        lastSeenAt: null,
        createdAt: 50,
        updatedAt: 50,
        workflowMoves: [],
        traceparent: null,
      });
      expect(await store.operator.states('r1')).toEqual([{ transition: 0, state: 'QUEUED', serverUpdatedAt: null, observedAt: 50 }]);
      expect(await store.anchors.currentRun('slack:C1:1700.1')).toBe('r1');
      expect(await store.anchors.history('slack:C1:1700.1')).toEqual([{ runId: 'r1', linkedAt: 50 }]);
      expect((await store.outbox.list()).map((r) => r.key)).toEqual(['r1:0:slack:C1:1700.1']);
      expect(await store.triggers.finish(trigger.id, 'w1', { state: 'failed' }, {}, 60)).toBe(false);
    });

    it('writes the audit entry with the end: once per once key, and not at all when the lease was lost', async () => {
      const entry = {
        at: 40,
        act: 'run.started' as const,
        personId: 'slack:U1',
        surface: 'slack',
        runId: 'r1',
        detail: { route: 'default' },
        onceKey: 'trigger:T1',
      };
      const [first, again, lost] = await Promise.all(
        ['A', 'B', 'C'].map((anchor) => store.triggers.enqueue({ trigger: aTrigger({ key: `T${anchor}`, anchor }), now: 0 })),
      );
      for (let claimed = 0; claimed < 3; claimed++) await store.triggers.claimNext('w1', 0, 100);
      expect(await store.triggers.finish(first!.trigger.id, 'w1', { state: 'done', runId: 'r1' }, { audit: entry }, 50)).toBe(true);
      // The same act ended again (another trigger carrying its once key): the trigger ends, the trail gains nothing.
      expect(await store.triggers.finish(again!.trigger.id, 'w1', { state: 'done', runId: 'r1' }, { audit: { ...entry, at: 60 } }, 60)).toBe(true);
      // A lease lost: nothing changes, the entry included.
      expect(await store.triggers.finish(lost!.trigger.id, 'w2', { state: 'done' }, { audit: { ...entry, onceKey: 'trigger:T3' } }, 60)).toBe(false);
      expect(await store.audit.list({ limit: 10 })).toEqual([{ id: expect.any(Number) as number, ...entry }]);
      expect(await store.triggers.get(lost!.trigger.id)).toMatchObject({ state: 'working' });
    });

    it('finishes a follow-up by tracking its ended run again', async () => {
      await store.trackedRuns.insert(aRun('r1'), 0);
      await store.trackedRuns.recordTransition('r1', 0, { state: 'SUCCEEDED', serverUpdatedAt: null, sessionLink: null, tracked: false }, [], 1);
      const { trigger } = await store.triggers.enqueue({ trigger: aTrigger({ key: 'reply', kind: 'followup' }), now: 2 });
      await store.triggers.claimNext('w1', 2, 100);
      expect(await store.triggers.finish(trigger.id, 'w1', { state: 'done', runId: 'r1' }, { retrack: 'r1' }, 3)).toBe(true);
      expect(await store.trackedRuns.get('r1')).toMatchObject({ tracked: true, state: 'SUCCEEDED' });
    });

    it('finishes failed or ignored with an error and no effects', async () => {
      const a = await store.triggers.enqueue({ trigger: aTrigger({ key: 'a', anchor: 'A' }), now: 0 });
      const b = await store.triggers.enqueue({ trigger: aTrigger({ key: 'b', anchor: 'B' }), now: 0 });
      await store.triggers.claimNext('w1', 0, 100);
      await store.triggers.claimNext('w1', 0, 100);
      await store.triggers.finish(a.trigger.id, 'w1', { state: 'failed', error: 'not allowed' }, {}, 5);
      await store.triggers.finish(b.trigger.id, 'w1', { state: 'ignored' }, {}, 5);
      expect(await store.triggers.get(a.trigger.id)).toMatchObject({ state: 'failed', lastError: 'not allowed', runId: null });
      expect(await store.triggers.countByState()).toEqual({ pending: 0, working: 0, done: 0, failed: 1, ignored: 1 });
      expect(await store.triggers.claimNext('w1', 10_000, 100)).toBeUndefined();
    });

    it('changes nothing when an effect fails (one transaction)', async () => {
      const { trigger } = await store.triggers.enqueue({ trigger: aTrigger(), now: 0 });
      await store.triggers.claimNext('w1', 0, 100);
      const before = await store.triggers.get(trigger.id);
      const badRun = aRun('r1', { anchor: null as unknown as string }); // violates NOT NULL
      await expect(
        store.triggers.finish(
          trigger.id,
          'w1',
          { state: 'done', runId: 'r1' },
          { link: { anchor: 'A', runId: 'r1' }, owed: [anOutboxRow('x')], run: badRun },
          5,
        ),
      ).rejects.toThrow(/NOT NULL|not-null/i);
      expect(await store.triggers.get(trigger.id)).toEqual(before);
      expect(await store.anchors.currentRun('A')).toBeUndefined();
      expect(await store.outbox.list()).toEqual([]);
    });

    it('an expired lease nobody took over is still held', async () => {
      const { trigger } = await store.triggers.enqueue({ trigger: aTrigger(), now: 0 });
      await store.triggers.claimNext('w1', 0, 100);
      expect(await store.triggers.extendLease(trigger.id, 'w1', 500, 100)).toBe(true);
      expect(await store.triggers.finish(trigger.id, 'w1', { state: 'done' }, {}, 1000)).toBe(true);
    });
  });
});
