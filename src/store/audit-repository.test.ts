import { afterEach, beforeEach, expect, it } from 'vitest';
import type { AuditEntry } from '../core/ports/audit.js';
import type { Store } from '../core/ports/store.js';
import { describeEachStore } from '../../test/store/adapters.js';

const entry = (onceKey: string, at: number, more: Partial<AuditEntry> = {}): AuditEntry => ({ at, act: 'run.started', surface: 'slack', onceKey, ...more });

describeEachStore((adapter) => {
  let store: Store;
  beforeEach(async () => {
    store = await adapter.open();
  });
  afterEach(async () => {
    await store.close();
  });

  it('records an entry once per once key, with everything it was given', async () => {
    const first = entry('trigger:Ev1', 1_000, { personId: 'U1', runId: 'run-1', detail: { route: 'web', key: 'personal' } });
    await store.audit.record(first);
    // A retried act with the same key adds nothing, even when it says something else.
    await store.audit.record({ ...first, at: 2_000, act: 'run.cancelled' });
    const listed = await store.audit.list({ limit: 10 });
    expect(listed).toEqual([{ id: 1, ...first }]);
    await store.audit.record(entry('console:retry:1', 3_000, { act: 'console.retry', surface: 'console' }));
    // Ids only grow (PostgreSQL's sequence may skip the one the refused insert drew).
    const [latest] = await store.audit.list({ limit: 10 });
    expect(latest).toEqual({ id: expect.any(Number), at: 3_000, act: 'console.retry', surface: 'console', onceKey: 'console:retry:1' });
    expect(latest?.id).toBeGreaterThan(1);
  });

  it('lists newest first, filtered by time, person and act, a page at a time', async () => {
    await store.audit.record(entry('a', 100, { personId: 'U1' }));
    await store.audit.record(entry('b', 200, { personId: 'U2', act: 'request.held' }));
    await store.audit.record(entry('c', 200, { personId: 'U1', act: 'request.held' }));
    await store.audit.record(entry('d', 300, { personId: 'U1', act: 'run.cancelled' }));
    const keys = (found: AuditEntry[]) => found.map((e) => e.onceKey);
    expect(keys(await store.audit.list({ limit: 10 }))).toEqual(['d', 'c', 'b', 'a']);
    expect(keys(await store.audit.list({ limit: 10, since: 200 }))).toEqual(['d', 'c', 'b']);
    expect(keys(await store.audit.list({ limit: 10, personId: 'U1' }))).toEqual(['d', 'c', 'a']);
    expect(keys(await store.audit.list({ limit: 10, act: 'request.held' }))).toEqual(['c', 'b']);
    expect(keys(await store.audit.list({ limit: 10, personId: 'U1', act: 'request.held', since: 150 }))).toEqual(['c']);
    // Pages: two entries share a time, so the cursor carries the id as well.
    const first = await store.audit.list({ limit: 2 });
    expect(keys(first)).toEqual(['d', 'c']);
    const last = first[1];
    if (!last) throw new Error('no second entry');
    expect(keys(await store.audit.list({ limit: 2, after: { at: last.at, id: last.id } }))).toEqual(['b', 'a']);
  });

  it('deletes the entries older than the retention in one statement and keeps the rest', async () => {
    await store.audit.record(entry('old-1', 100));
    await store.audit.record(entry('old-2', 199));
    await store.audit.record(entry('kept', 200));
    expect(await store.audit.prune(200)).toBe(2);
    expect(await store.audit.prune(200)).toBe(0);
    expect((await store.audit.list({ limit: 10 })).map((e) => e.onceKey)).toEqual(['kept']);
  });
});
