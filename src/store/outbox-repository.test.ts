import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { anOutboxRow } from '../../test/store/helpers.js';
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

  const LEASE = 10_000;

  describe('outbox.add', () => {
    it('keeps the trace that owes a row (migration 17), for its delivery to link to', async () => {
      await store.outbox.add([{ ...anOutboxRow('k1'), traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' }], 100);
      expect((await store.outbox.getByKey('k1'))?.traceparent).toBe('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
      expect((await store.outbox.claimNext('w1', 100, LEASE))?.traceparent).toBe('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    });

    it('adds rows once per key, due at once', async () => {
      expect(await store.outbox.add([anOutboxRow('k1'), anOutboxRow('k2')], 100)).toBe(2);
      expect(await store.outbox.add([anOutboxRow('k2'), anOutboxRow('k3')], 200)).toBe(1);
      expect(await store.outbox.add([], 300)).toBe(0);
      expect(await store.outbox.getByKey('k1')).toEqual({
        id: 1,
        key: 'k1',
        destination: 'slack:C1:1700.1',
        kind: 'status',
        payload: { text: 'k1' },
        state: 'pending',
        attempts: 0,
        nextAttemptAt: 100,
        leaseOwner: null,
        leaseUntil: null,
        result: null,
        lastError: null,
        createdAt: 100,
        sentAt: null,
        traceparent: null,
      });
      expect(await store.outbox.getByKey('nope')).toBeUndefined();
      expect(await store.outbox.counts()).toEqual({ pending: 3, sending: 0, sent: 0, failed: 0 });
    });

    it('keeps the order given in one call (ids and delivery follow it) and the first of a key given twice', async () => {
      const keys = ['z', 'y', 'x', 'w', 'v', 'u', 't', 's'];
      const added = [...keys.map((key) => anOutboxRow(key, 'D')), anOutboxRow('y', 'D', { text: 'second y' })];
      expect(await store.outbox.add(added, 100)).toBe(keys.length);
      const listed = await store.outbox.list({ destination: 'D' });
      expect([...listed].sort((a, b) => a.id - b.id).map((item) => item.key)).toEqual(keys);
      expect((await store.outbox.getByKey('y'))?.payload).toEqual({ text: 'y' });
      const claimed: string[] = [];
      for (let index = 0; index < keys.length; index++) {
        const row = await store.outbox.claimNext('w1', 200, LEASE);
        if (!row) break;
        claimed.push(row.key);
        await store.outbox.markSent(row.id, 'w1', null, 200);
      }
      expect(claimed).toEqual(keys);
    });
  });

  describe('outbox.markSentAndClaimNext', () => {
    it('marks the row sent and claims the next due row, which may be the same destination’s next; a lost lease marks nothing', async () => {
      await store.outbox.add([anOutboxRow('a1', 'A'), anOutboxRow('a2', 'A'), anOutboxRow('b1', 'B'), anOutboxRow('a3', 'A')], 0);
      const a1 = await store.outbox.claimNext('w1', 10, LEASE);
      expect(a1?.key).toBe('a1');

      const first = await store.outbox.markSentAndClaimNext(a1!.id, 'w1', { ts: '1' }, 20, LEASE);
      expect(first.sent).toBe(true);
      expect(first.next).toMatchObject({ key: 'a2', state: 'sending', leaseOwner: 'w1', leaseUntil: 20 + LEASE, attempts: 1 });
      expect(await store.outbox.getByKey('a1')).toMatchObject({ state: 'sent', result: { ts: '1' }, sentAt: 20, leaseOwner: null });

      // w2 never held a2: nothing is marked, and a3 still waits behind a2.
      const lost = await store.outbox.markSentAndClaimNext(first.next!.id, 'w2', null, 30, LEASE);
      expect(lost.sent).toBe(false);
      expect(lost.next).toMatchObject({ key: 'b1', leaseOwner: 'w2' });
      expect(await store.outbox.getByKey('a2')).toMatchObject({ state: 'sending', leaseOwner: 'w1' });

      const none = await store.outbox.markSentAndClaimNext(lost.next!.id, 'w2', null, 40, LEASE);
      expect(none).toEqual({ sent: true, next: undefined });

      const last = await store.outbox.markSentAndClaimNext(first.next!.id, 'w1', null, 50, LEASE);
      expect(last.sent).toBe(true);
      expect(last.next?.key).toBe('a3');
      expect(await store.outbox.counts()).toEqual({ pending: 0, sending: 1, sent: 3, failed: 0 });
    });
  });

  describe('outbox.claimNext', () => {
    it('claims the oldest due row and leases it', async () => {
      await store.outbox.add([anOutboxRow('a1', 'A'), anOutboxRow('b1', 'B')], 0);
      expect(await store.outbox.claimNext('w1', 5, LEASE)).toMatchObject({ key: 'a1', state: 'sending', attempts: 1, leaseOwner: 'w1', leaseUntil: 5 + LEASE });
      expect((await store.outbox.claimNext('w2', 5, LEASE))?.key).toBe('b1');
      expect(await store.outbox.claimNext('w3', 5, LEASE)).toBeUndefined();
    });

    it('says whether another row was due, its destination blocked or not; so does the claim of markSentAndClaimNext', async () => {
      await store.outbox.add([anOutboxRow('a1', 'A'), anOutboxRow('a2', 'A'), anOutboxRow('b1', 'B')], 0);
      await store.outbox.add([anOutboxRow('c1', 'C')], 5000);
      const a1 = await store.outbox.claimNext('w1', 5, LEASE);
      expect(a1).toMatchObject({ key: 'a1', moreDue: true });
      expect(await store.outbox.claimNext('w2', 5, LEASE)).toMatchObject({ key: 'b1', moreDue: true }); // a2, behind a1
      const next = await store.outbox.markSentAndClaimNext(a1!.id, 'w1', null, 6, LEASE);
      // c1 is not due yet, b1 is being sent: nothing else waits.
      expect(next.next).toMatchObject({ key: 'a2', moreDue: false });
    });

    it('keeps order per destination: a later row waits while an earlier one is unsent', async () => {
      await store.outbox.add([anOutboxRow('a1', 'A'), anOutboxRow('a2', 'A'), anOutboxRow('b1', 'B'), anOutboxRow('a3', 'A')], 0);
      const a1 = await store.outbox.claimNext('w1', 0, LEASE);
      expect(a1?.key).toBe('a1');
      expect((await store.outbox.claimNext('w2', 0, LEASE))?.key).toBe('b1'); // other destinations proceed
      expect(await store.outbox.claimNext('w3', 0, LEASE)).toBeUndefined(); // a2 waits for a1 (sending)

      // a1 retried later: still pending, still first, so a2 keeps waiting.
      expect(await store.outbox.retryLater(a1!.id, 'w1', 500, 'rate limited', 1)).toBe(true);
      expect(await store.outbox.claimNext('w3', 499, LEASE)).toBeUndefined();
      const again = await store.outbox.claimNext('w3', 500, LEASE);
      expect(again).toMatchObject({ key: 'a1', attempts: 2, lastError: 'rate limited' });

      expect(await store.outbox.markSent(again!.id, 'w3', { ts: '1.2' }, 501)).toBe(true);
      const a2 = await store.outbox.claimNext('w1', 501, LEASE);
      expect(a2?.key).toBe('a2');
      // A failed row no longer holds its destination back.
      expect(await store.outbox.markFailed(a2!.id, 'w1', 'channel_not_found', 502)).toBe(true);
      expect((await store.outbox.claimNext('w1', 502, LEASE))?.key).toBe('a3');
    });

    it('re-claims a sending row once its lease expired, and the first owner loses it', async () => {
      await store.outbox.add([anOutboxRow('k1')], 0);
      const first = await store.outbox.claimNext('w1', 0, 100);
      expect(await store.outbox.claimNext('w2', 99, 100)).toBeUndefined();
      expect(await store.outbox.claimNext('w2', 100, 100)).toMatchObject({ id: first!.id, leaseOwner: 'w2', attempts: 2 });

      const before = await store.outbox.getByKey('k1');
      expect(await store.outbox.markSent(first!.id, 'w1', { ts: 'x' }, 150)).toBe(false);
      expect(await store.outbox.retryLater(first!.id, 'w1', 999, 'e', 150)).toBe(false);
      expect(await store.outbox.markFailed(first!.id, 'w1', 'e', 150)).toBe(false);
      expect(await store.outbox.getByKey('k1')).toEqual(before);
    });

    it('extends the lease of its holder only: a renewed row is not re-claimed, one taken over is not renewed', async () => {
      await store.outbox.add([anOutboxRow('k1')], 0);
      const row = await store.outbox.claimNext('w1', 0, 100);
      expect(await store.outbox.extendLease(row!.id, 'w1', 90, 100)).toBe(true);
      expect(await store.outbox.getByKey('k1')).toMatchObject({ state: 'sending', leaseOwner: 'w1', leaseUntil: 190 });
      expect(await store.outbox.claimNext('w2', 150, 100)).toBeUndefined();
      expect(await store.outbox.claimNext('w2', 190, 100)).toMatchObject({ id: row!.id, leaseOwner: 'w2' });
      expect(await store.outbox.extendLease(row!.id, 'w1', 200, 100)).toBe(false);
      expect(await store.outbox.getByKey('k1')).toMatchObject({ leaseOwner: 'w2', leaseUntil: 290 });
    });

    it('an expired lease nobody took over is still held', async () => {
      await store.outbox.add([anOutboxRow('k1')], 0);
      const row = await store.outbox.claimNext('w1', 0, 100);
      expect(await store.outbox.markSent(row!.id, 'w1', null, 1000)).toBe(true);
    });
  });

  describe('outbox after sending', () => {
    it('marks sent with the result, once', async () => {
      await store.outbox.add([anOutboxRow('k1')], 0);
      const row = await store.outbox.claimNext('w1', 10, LEASE);
      expect(await store.outbox.markSent(row!.id, 'w1', { channel: 'C1', ts: '1700.2' }, 20)).toBe(true);
      expect(await store.outbox.getByKey('k1')).toMatchObject({
        state: 'sent',
        result: { channel: 'C1', ts: '1700.2' },
        sentAt: 20,
        leaseOwner: null,
        leaseUntil: null,
      });
      expect(await store.outbox.markSent(row!.id, 'w1', {}, 30)).toBe(false);
      expect(await store.outbox.claimNext('w1', 10_000_000, LEASE)).toBeUndefined();
    });

    it('marks failed with the error', async () => {
      await store.outbox.add([anOutboxRow('k1')], 0);
      const row = await store.outbox.claimNext('w1', 10, LEASE);
      expect(await store.outbox.markFailed(row!.id, 'w1', 'invalid_auth', 20)).toBe(true);
      expect(await store.outbox.getByKey('k1')).toMatchObject({ state: 'failed', lastError: 'invalid_auth', leaseOwner: null });
      expect(await store.outbox.markFailed(row!.id, 'w2', 'x', 20)).toBe(false);
    });

    it('lists by destination and state, and counts states', async () => {
      await store.outbox.add([anOutboxRow('a1', 'A'), anOutboxRow('b1', 'B'), anOutboxRow('a2', 'A')], 0);
      const a1 = await store.outbox.claimNext('w1', 0, LEASE);
      await store.outbox.markSent(a1!.id, 'w1', null, 1);
      await store.outbox.claimNext('w1', 1, LEASE); // b1 → sending
      expect((await store.outbox.list()).map((r) => r.key)).toEqual(['a1', 'b1', 'a2']);
      expect((await store.outbox.list({ destination: 'A' })).map((r) => r.key)).toEqual(['a1', 'a2']);
      expect((await store.outbox.list({ state: 'pending' })).map((r) => r.key)).toEqual(['a2']);
      expect((await store.outbox.list({ destination: 'A', state: 'sent' })).map((r) => r.key)).toEqual(['a1']);
      expect(await store.outbox.counts()).toEqual({ pending: 1, sending: 1, sent: 1, failed: 0 });
    });
  });
});
