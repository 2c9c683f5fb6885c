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
    expect(await store.personLinks.get('lin-1')).toBeUndefined();
    expect(await store.personLinks.put({ linearUserId: 'lin-1', slackUserId: 'U1', how: 'email', linkedAt: 100 })).toBe(true);
    // A second email lookup finding someone else does not move an existing link.
    expect(await store.personLinks.put({ linearUserId: 'lin-1', slackUserId: 'U2', how: 'email', linkedAt: 200 })).toBe(false);
    expect(await store.personLinks.get('lin-1')).toEqual({ linearUserId: 'lin-1', slackUserId: 'U1', how: 'email', linkedAt: 100 });

    await store.personLinks.put({ linearUserId: 'lin-0', slackUserId: 'U9', how: 'console', linkedAt: 50 });
    expect((await store.personLinks.list()).map((link) => [link.linearUserId, link.slackUserId, link.how])).toEqual([
      ['lin-0', 'U9', 'console'],
      ['lin-1', 'U1', 'email'],
    ]);
    expect(await store.personLinks.remove('lin-1')).toBe(true);
    expect(await store.personLinks.remove('lin-1')).toBe(false);
    expect(await store.personLinks.get('lin-1')).toBeUndefined();
  });

  it('lets a console link replace an email link, and never the other way round', async () => {
    await store.personLinks.put({ linearUserId: 'lin-1', slackUserId: 'U1', how: 'email', linkedAt: 100 });
    expect(await store.personLinks.put({ linearUserId: 'lin-1', slackUserId: 'U2', how: 'console', linkedAt: 200 })).toBe(true);
    expect(await store.personLinks.put({ linearUserId: 'lin-1', slackUserId: 'U3', how: 'email', linkedAt: 300 })).toBe(false);
    expect(await store.personLinks.get('lin-1')).toEqual({ linearUserId: 'lin-1', slackUserId: 'U2', how: 'console', linkedAt: 200 });
    // An admin may correct their own link.
    expect(await store.personLinks.put({ linearUserId: 'lin-1', slackUserId: 'U4', how: 'console', linkedAt: 400 })).toBe(true);
    expect((await store.personLinks.get('lin-1'))?.slackUserId).toBe('U4');
  });
});
