import { afterEach, beforeEach, expect, it } from 'vitest';
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

  it('stores the first signing key offered and gives it back for every later offer', async () => {
    expect(await store.consoleSessions.signingKey('key-one', 100)).toBe('key-one');
    expect(await store.consoleSessions.signingKey('key-two', 200)).toBe('key-one');
    const offers = await Promise.all(['a', 'b', 'c'].map((candidate) => store.consoleSessions.signingKey(candidate, 300)));
    expect(offers).toEqual(['key-one', 'key-one', 'key-one']);
  });

  it('ends a session once, and forgets ended sessions once they would have expired anyway', async () => {
    expect(await store.consoleSessions.isEnded('sid-1')).toBe(false);
    await store.consoleSessions.end('sid-1', 1_000, 100);
    await store.consoleSessions.end('sid-1', 1_000, 150);
    expect(await store.consoleSessions.isEnded('sid-1')).toBe(true);
    expect(await store.consoleSessions.isEnded('sid-2')).toBe(false);
    // Ending another session after sid-1's expiry forgets sid-1: its cookie no longer works by itself.
    await store.consoleSessions.end('sid-2', 5_000, 1_000);
    expect(await store.consoleSessions.isEnded('sid-1')).toBe(false);
    expect(await store.consoleSessions.isEnded('sid-2')).toBe(true);
  });
});
