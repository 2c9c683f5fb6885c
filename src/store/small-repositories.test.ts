import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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

  describe('anchors', () => {
    it('link runs, keep the history and know the current run', async () => {
      expect(await store.anchors.currentRun('T1')).toBeUndefined();
      await store.anchors.link('T1', 'r1', 10);
      await store.anchors.link('T1', 'r2', 20);
      expect(await store.anchors.currentRun('T1')).toBe('r2');
      await store.anchors.link('T1', 'r1', 30); // back to an earlier run: current again, history unchanged
      expect(await store.anchors.currentRun('T1')).toBe('r1');
      expect(await store.anchors.history('T1')).toEqual([
        { runId: 'r1', linkedAt: 10 },
        { runId: 'r2', linkedAt: 20 },
      ]);
      expect(await store.anchors.history('T2')).toEqual([]);
      expect(await store.anchors.anchorOf('r2')).toBe('T1');
      expect(await store.anchors.anchorOf('nope')).toBeUndefined();
    });

    it('know the current run through an alias setting, the anchor’s own run first', async () => {
      expect(await store.anchors.currentRunVia('T1', 'alias:T1')).toBeUndefined(); // no run, no alias
      await store.settings.set('alias:T1', 'T9');
      expect(await store.anchors.currentRunVia('T1', 'alias:T1')).toBeUndefined(); // the alias has no run either
      await store.anchors.link('T9', 'r9', 10);
      expect(await store.anchors.currentRunVia('T1', 'alias:T1')).toBe('r9');
      await store.anchors.link('T1', 'r1', 20);
      expect(await store.anchors.currentRunVia('T1', 'alias:T1')).toBe('r1');
      expect(await store.anchors.currentRunVia('T2', 'alias:none')).toBeUndefined();
    });
  });

  describe('event keys', () => {
    it('remember a key once and prune old ones', async () => {
      expect(await store.eventKeys.remember('e1', 100)).toBe(true);
      expect(await store.eventKeys.remember('e1', 200)).toBe(false);
      expect(await store.eventKeys.remember('e2', 300)).toBe(true);
      expect(await store.eventKeys.prune(100)).toBe(0);
      expect(await store.eventKeys.prune(101)).toBe(1);
      expect(await store.eventKeys.remember('e1', 400)).toBe(true); // forgotten, so new again
      expect(await store.eventKeys.remember('e2', 400)).toBe(false);
    });

    it('has tells whether a key is remembered, without remembering it', async () => {
      expect(await store.eventKeys.has('h1')).toBe(false);
      expect(await store.eventKeys.has('h1')).toBe(false);
      await store.eventKeys.remember('h1', 100);
      expect(await store.eventKeys.has('h1')).toBe(true);
      await store.eventKeys.prune(101);
      expect(await store.eventKeys.has('h1')).toBe(false);
    });

    it('advance a watermark: a later or equal time passes and raises it, an older one does not; pruned by its time', async () => {
      expect(await store.eventKeys.advance('w1', 200)).toBe(true);
      expect(await store.eventKeys.advance('w1', 100)).toBe(false);
      expect(await store.eventKeys.advance('w1', 200)).toBe(true);
      expect(await store.eventKeys.advance('w1', 300)).toBe(true);
      expect(await store.eventKeys.advance('w1', 200)).toBe(false);
      expect(await store.eventKeys.advance('w2', 50)).toBe(true);
      expect(await store.eventKeys.prune(301)).toBe(2);
      expect(await store.eventKeys.advance('w1', 100)).toBe(true);
    });
  });

  describe('schedule fires', () => {
    it('record a slot once', async () => {
      expect(
        await store.scheduleFires.record({
          schedule: 'nightly',
          slot: '2025-01-01T03:00:00Z',
          firedAt: 10,
          status: 'recorded',
          triggerKey: 'schedule:nightly:1',
        }),
      ).toBe(true);
      expect(await store.scheduleFires.record({ schedule: 'nightly', slot: '2025-01-01T03:00:00Z', firedAt: 11, status: 'recorded' })).toBe(false);
      expect(await store.scheduleFires.record({ schedule: 'other', slot: '2025-01-01T03:00:00Z', firedAt: 12, status: 'skipped', reason: 'overlap' })).toBe(
        true,
      );
      expect(await store.scheduleFires.latest('nightly')).toEqual({
        schedule: 'nightly',
        slot: '2025-01-01T03:00:00Z',
        firedAt: 10,
        status: 'recorded',
        reason: null,
        triggerKey: 'schedule:nightly:1',
        runId: null,
      });
      expect(await store.scheduleFires.latest('none')).toBeUndefined();
    });

    it('update only the given fields', async () => {
      await store.scheduleFires.record({ schedule: 's', slot: 'a', firedAt: 1, status: 'recorded', reason: 'why' });
      await store.scheduleFires.update('s', 'a', { runId: 'r1' });
      expect(await store.scheduleFires.latest('s')).toMatchObject({ status: 'recorded', reason: 'why', runId: 'r1' });
      await store.scheduleFires.update('s', 'a', { status: 'created', reason: null });
      expect(await store.scheduleFires.latest('s')).toMatchObject({ status: 'created', reason: null, runId: 'r1' });
      await store.scheduleFires.update('s', 'missing', { status: 'failed' });
      expect(await store.scheduleFires.list('s', 10)).toHaveLength(1);
    });

    it('list the newest first', async () => {
      await store.scheduleFires.record({ schedule: 's', slot: 'a', firedAt: 1, status: 'created' });
      await store.scheduleFires.record({ schedule: 's', slot: 'c', firedAt: 3, status: 'missed' });
      await store.scheduleFires.record({ schedule: 's', slot: 'b', firedAt: 2, status: 'failed' });
      expect((await store.scheduleFires.list('s', 10)).map((f) => f.slot)).toEqual(['c', 'b', 'a']);
      expect((await store.scheduleFires.list('s', 2)).map((f) => f.slot)).toEqual(['c', 'b']);
      expect((await store.scheduleFires.latest('s'))?.slot).toBe('c');
    });
  });

  describe('leases', () => {
    it('are held by one owner until they expire, renewed by their owner', async () => {
      expect(await store.leases.acquire('tracker', 'p1', 0, 100)).toBe(true);
      expect(await store.leases.acquire('tracker', 'p2', 50, 100)).toBe(false);
      expect(await store.leases.acquire('tracker', 'p1', 90, 100)).toBe(true); // renewed until 190
      expect(await store.leases.acquire('tracker', 'p2', 189, 100)).toBe(false);
      expect(await store.leases.acquire('tracker', 'p2', 190, 100)).toBe(true); // expired: taken over
      expect(await store.leases.acquire('tracker', 'p1', 200, 100)).toBe(false);
      expect(await store.leases.acquire('other', 'p1', 200, 100)).toBe(true); // names are independent
    });

    it('are released by their owner only', async () => {
      await store.leases.acquire('tracker', 'p1', 0, 100);
      await store.leases.release('tracker', 'p2');
      expect(await store.leases.acquire('tracker', 'p2', 10, 100)).toBe(false);
      await store.leases.release('tracker', 'p1');
      expect(await store.leases.acquire('tracker', 'p2', 10, 100)).toBe(true);
    });
  });

  describe('settings', () => {
    it('get, set and overwrite values', async () => {
      expect(await store.settings.get('tracker.watermark')).toBeUndefined();
      await store.settings.set('tracker.watermark', '2025-01-01T00:00:00Z');
      await store.settings.set('tracker.watermark', '2025-01-02T00:00:00Z');
      expect(await store.settings.get('tracker.watermark')).toBe('2025-01-02T00:00:00Z');
    });
  });
});
