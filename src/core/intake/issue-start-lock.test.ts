import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../../store/sqlite-store.js';
import { IssueStartBusyError, releaseIssueStart, takeIssueStart } from './issue-start-lock.js';

let store: SqliteStore;
beforeEach(() => {
  store = openSqliteStore({ path: ':memory:' });
});
afterEach(() => store.close());

const ISSUE = 'linear:0a1b2c3d-0000-4000-8000-00000issue01';
const LEASE = 30_000;

describe('one start at a time per issue', () => {
  it('a second request about the issue waits while the first holds its start; the first may take it again (a retry)', async () => {
    await takeIssueStart(store, ISSUE, { triggerKey: 'slack:msg:C1:1.1', now: 1_000, leaseMs: LEASE });
    await expect(takeIssueStart(store, ISSUE, { triggerKey: 'slack:msg:C2:2.2', now: 1_500, leaseMs: LEASE })).rejects.toBeInstanceOf(IssueStartBusyError);
    // Another issue is not held up.
    await takeIssueStart(store, 'linear:other', { triggerKey: 'slack:msg:C2:2.2', now: 1_500, leaseMs: LEASE });
    // The first trigger retried (after a crash, by any process) still holds it.
    await takeIssueStart(store, ISSUE, { triggerKey: 'slack:msg:C1:1.1', now: 20_000, leaseMs: LEASE });
  });

  it('is free once the first is finished, or once its lease (twice the trigger’s) ran out', async () => {
    await takeIssueStart(store, ISSUE, { triggerKey: 'a', now: 0, leaseMs: LEASE });
    await releaseIssueStart(store, ISSUE, 'b'); // not b's to give up
    await expect(takeIssueStart(store, ISSUE, { triggerKey: 'b', now: 1, leaseMs: LEASE })).rejects.toThrow(/another request is starting a run on linear:/);
    await releaseIssueStart(store, ISSUE, 'a');
    await takeIssueStart(store, ISSUE, { triggerKey: 'b', now: 2, leaseMs: LEASE });
    await expect(takeIssueStart(store, ISSUE, { triggerKey: 'c', now: 2 + 2 * LEASE - 1, leaseMs: LEASE })).rejects.toBeInstanceOf(IssueStartBusyError);
    await takeIssueStart(store, ISSUE, { triggerKey: 'c', now: 2 + 2 * LEASE, leaseMs: LEASE });
  });
});
