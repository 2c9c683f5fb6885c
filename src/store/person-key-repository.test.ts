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

  it('stores, replaces, touches and removes a person’s key', async () => {
    expect(await store.personKeys.get('U1')).toBeUndefined();
    expect(await store.personKeys.count()).toBe(0);
    await store.personKeys.put({ personId: 'U1', sealed: 'v1.a.b.c', lastFour: 'abcd', connectedAt: 100 });
    await store.personKeys.touch('U1', 150);
    expect(await store.personKeys.get('U1')).toEqual({ personId: 'U1', sealed: 'v1.a.b.c', lastFour: 'abcd', connectedAt: 100, lastUsedAt: 150 });

    // Connecting again replaces the key and forgets when the old one was used.
    await store.personKeys.put({ personId: 'U1', sealed: 'v1.d.e.f', lastFour: 'wxyz', connectedAt: 200 });
    expect(await store.personKeys.get('U1')).toEqual({ personId: 'U1', sealed: 'v1.d.e.f', lastFour: 'wxyz', connectedAt: 200, lastUsedAt: null });
    expect(await store.personKeys.count()).toBe(1);

    expect(await store.personKeys.remove('U1')).toBe(true);
    expect(await store.personKeys.remove('U1')).toBe(false);
    expect(await store.personKeys.get('U1')).toBeUndefined();
  });

  it('lists by person and reseals every key at once', async () => {
    await store.personKeys.put({ personId: 'U2', sealed: 'old-2', lastFour: '2222', connectedAt: 2 });
    await store.personKeys.put({ personId: 'U1', sealed: 'old-1', lastFour: '1111', connectedAt: 1 });
    expect((await store.personKeys.list()).map((key) => key.personId)).toEqual(['U1', 'U2']);

    const changed = await store.personKeys.reseal([
      { personId: 'U1', sealed: 'new-1' },
      { personId: 'U2', sealed: 'new-2' },
      { personId: 'U9', sealed: 'nobody' },
    ]);
    expect(changed).toBe(2);
    expect((await store.personKeys.list()).map((key) => [key.sealed, key.lastFour])).toEqual([
      ['new-1', '1111'],
      ['new-2', '2222'],
    ]);
  });
});
