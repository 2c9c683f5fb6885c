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

describeEachStore((adapter) => {
  it('keeps a Jira account’s link (jira:<accountId>, issue 30) beside a Linear user’s of the same id, on both engines', async () => {
    const store = await adapter.open();
    try {
      const jiraId = 'jira:557058:f58131cb-b67d-43c7-b30d-6b58d40bd077';
      await store.personLinks.put({ linearUserId: jiraId, slackUserId: 'U1', how: 'email', linkedAt: 1 });
      await store.personLinks.put({ linearUserId: '557058:f58131cb-b67d-43c7-b30d-6b58d40bd077', slackUserId: 'U2', how: 'console', linkedAt: 2 });
      expect(await store.personLinks.get(jiraId)).toEqual({ linearUserId: jiraId, slackUserId: 'U1', how: 'email', linkedAt: 1 });
      expect(await store.personLinks.remove(jiraId)).toBe(true);
      expect((await store.personLinks.list()).map((link) => link.slackUserId)).toEqual(['U2']);
    } finally {
      await store.close();
    }
  });
});
