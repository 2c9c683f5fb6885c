import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeEachStore } from '../../test/store/adapters.js';
import { aTrigger, anOutboxRow } from '../../test/store/helpers.js';
import type { Store } from '../core/ports/store.js';
import { openSqliteStore } from './sqlite-store.js';
import { stateCountSql } from './sql.js';

/*
 * Counting the outbox and the triggers by state (migration 16): the counts read
 * partial indexes, so no index keyed by state holds every row — a claim or a delivery would move its
 * entry, pages written to the WAL on every state change for a statement a metrics scrape runs.
 */
describeEachStore((adapter) => {
  let store: Store;
  beforeEach(async () => {
    store = await adapter.open();
  });
  afterEach(async () => {
    await store.close();
  });

  it('counts every outbox state: pending (due or later), sending, sent and failed', async () => {
    await store.outbox.add(
      ['a', 'b', 'c', 'd', 'e'].map((key) => anOutboxRow(key, `slack:C1:${key}`)),
      0,
    );
    const claim = () => store.outbox.claimNext('p:1:w/o', 10, 1_000);
    const sent = (await claim())!;
    await store.outbox.markSent(sent.id, 'p:1:w/o', { ok: true }, 10);
    const failed = (await claim())!;
    await store.outbox.markFailed(failed.id, 'p:1:w/o', 'channel_not_found', 10);
    const later = (await claim())!;
    await store.outbox.retryLater(later.id, 'p:1:w/o', 5_000, 'ratelimited', 10);
    await claim();
    expect(await store.outbox.counts()).toEqual({ pending: 2, sending: 1, sent: 1, failed: 1 });
  });

  it('counts every trigger state', async () => {
    const stored = await Promise.all(['A', 'B', 'C', 'D', 'E'].map((anchor) => store.triggers.enqueue({ trigger: aTrigger({ key: anchor, anchor }), now: 0 })));
    for (let claimed = 0; claimed < 4; claimed++) await store.triggers.claimNext('w1', 0, 1_000);
    const ids = stored.map((result) => result.trigger.id);
    await store.triggers.finish(ids[0]!, 'w1', { state: 'done', runId: 'r1' }, {}, 1);
    await store.triggers.finish(ids[1]!, 'w1', { state: 'failed', error: 'x' }, {}, 1);
    await store.triggers.finish(ids[2]!, 'w1', { state: 'ignored' }, {}, 1);
    expect(await store.triggers.countByState()).toEqual({ pending: 1, working: 1, done: 1, failed: 1, ignored: 1 });
  });
});

describe('the indexes SQLite counts states with', () => {
  it('no index keyed by state holds every outbox row or trigger: only partial ones', () => {
    const store = openSqliteStore({ path: ':memory:' });
    try {
      const indexes = store.db
        .prepare<[], { tbl: string; name: string; partial: number; first: string }>(
          `SELECT m.tbl_name AS tbl, l.name, l.partial, (SELECT i.name FROM pragma_index_info(l.name) AS i WHERE i.seqno = 0) AS first
           FROM sqlite_master AS m JOIN pragma_index_list(m.name) AS l WHERE m.type = 'table' AND m.name IN ('outbox', 'triggers')`,
        )
        .all();
      const byState = indexes.filter((index) => index.first === 'state');
      expect(byState.map((index) => index.name).sort()).toEqual(['outbox_finished', 'triggers_finished']);
      expect(byState.every((index) => index.partial === 1)).toBe(true);
    } finally {
      void store.close();
    }
  });

  it.each(['outbox', 'triggers'] as const)('counts %s through indexes only, the finished rows without a sort', (table) => {
    const store = openSqliteStore({ path: ':memory:' });
    try {
      const plan = store.db
        .prepare<[], { detail: string }>(`EXPLAIN QUERY PLAN ${stateCountSql(table)}`)
        .all()
        .map((step) => step.detail);
      expect(plan).toContain(`SEARCH ${table} USING COVERING INDEX ${table}_finished (state=?)`);
      expect(plan.filter((step) => step.startsWith('SCAN') || step.startsWith('SEARCH')).every((step) => step.includes('INDEX'))).toBe(true);
    } finally {
      void store.close();
    }
  });
});
