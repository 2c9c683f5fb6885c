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

  it('stores an email link once, lists and removes links', async () => {
    expect(await store.personLinks.get('linear', 'lin-1')).toBeUndefined();
    expect(await store.personLinks.put({ surface: 'linear', userId: 'lin-1', personId: 'U1', how: 'email', linkedAt: 100 })).toBe(true);
    // A second email lookup finding someone else does not move an existing link.
    expect(await store.personLinks.put({ surface: 'linear', userId: 'lin-1', personId: 'U2', how: 'email', linkedAt: 200 })).toBe(false);
    expect(await store.personLinks.get('linear', 'lin-1')).toEqual({ surface: 'linear', userId: 'lin-1', personId: 'U1', how: 'email', linkedAt: 100 });

    await store.personLinks.put({ surface: 'linear', userId: 'lin-0', personId: 'U9', how: 'console', linkedAt: 50 });
    expect((await store.personLinks.list()).map((link) => [link.userId, link.personId, link.how])).toEqual([
      ['lin-0', 'U9', 'console'],
      ['lin-1', 'U1', 'email'],
    ]);
    expect(await store.personLinks.remove('linear', 'lin-1')).toBe(true);
    expect(await store.personLinks.remove('linear', 'lin-1')).toBe(false);
    expect(await store.personLinks.get('linear', 'lin-1')).toBeUndefined();
  });

  it('keeps each surface’s users apart: the same user id on two surfaces is two links', async () => {
    await store.personLinks.put({ surface: 'linear', userId: 'u-1', personId: 'U1', how: 'console', linkedAt: 1 });
    expect(await store.personLinks.put({ surface: 'jira', userId: 'u-1', personId: 'U2', how: 'email', linkedAt: 2 })).toBe(true);
    expect((await store.personLinks.get('linear', 'u-1'))?.personId).toBe('U1');
    expect((await store.personLinks.get('jira', 'u-1'))?.personId).toBe('U2');
    expect(await store.personLinks.remove('jira', 'u-1')).toBe(true);
    expect((await store.personLinks.list()).map((link) => [link.surface, link.userId])).toEqual([['linear', 'u-1']]);
  });

  it('lets a console link replace an email link, and never the other way round', async () => {
    await store.personLinks.put({ surface: 'linear', userId: 'lin-1', personId: 'U1', how: 'email', linkedAt: 100 });
    expect(await store.personLinks.put({ surface: 'linear', userId: 'lin-1', personId: 'U2', how: 'console', linkedAt: 200 })).toBe(true);
    expect(await store.personLinks.put({ surface: 'linear', userId: 'lin-1', personId: 'U3', how: 'email', linkedAt: 300 })).toBe(false);
    expect(await store.personLinks.get('linear', 'lin-1')).toEqual({ surface: 'linear', userId: 'lin-1', personId: 'U2', how: 'console', linkedAt: 200 });
    // An admin may correct their own link.
    expect(await store.personLinks.put({ surface: 'linear', userId: 'lin-1', personId: 'U4', how: 'console', linkedAt: 400 })).toBe(true);
    expect((await store.personLinks.get('linear', 'lin-1'))?.personId).toBe('U4');
  });
});
