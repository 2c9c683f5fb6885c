import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aTrigger, anOutboxRow } from '../../../test/store/helpers.js';
import { postgresSkipNote, requirePostgres, startPostgres, type PostgresServer } from '../../../test/helpers/postgres-server.js';
import { until } from '../../../test/helpers/until.js';
import { openPostgresStore, type PostgresStore } from './postgres-store.js';

/*
 * A burst that fills the queues has the planner's statistics refreshed, so the claims walk the
 * unfinished/unsent indexes in id order instead of reading and sorting the whole backlog per claim
 * (what PostgreSQL does while its statistics still say the queues are nearly empty).
 */
const runs = requirePostgres('queue statistics');

describe.skipIf(!runs)(`queue statistics under a burst${postgresSkipNote()}`, () => {
  let server: PostgresServer;
  let store: PostgresStore;

  beforeAll(async () => {
    server = await startPostgres({ settings: { autovacuum: 'off' } });
    store = await openPostgresStore({ url: await server.createDatabase() });
  });
  afterAll(async () => {
    await store?.close();
    await server?.stop();
  });

  const analysed = async () =>
    (
      await store.pool.query<{ relname: string }>(
        "SELECT relname FROM pg_stat_user_tables WHERE relname IN ('triggers', 'outbox') AND last_analyze IS NOT NULL ORDER BY relname",
      )
    ).rows.map((row) => row.relname);

  it('analyses the trigger and outbox tables once a burst has stored enough, and a claim then reads the queue in order', async () => {
    await store.triggers.enqueue({ trigger: aTrigger({ key: 'first', anchor: 'first' }), owed: [anOutboxRow('first:received', 'first')], now: 1000 });
    expect(await analysed()).toEqual([]);

    for (let start = 0; start < 600; start += 100) {
      await Promise.all(
        Array.from({ length: 100 }, (_, index) =>
          store.triggers.enqueue({
            trigger: aTrigger({ key: `k${start + index}`, anchor: `a${start + index}` }),
            owed: [anOutboxRow(`o${start + index}`, `a${start + index}`)],
            now: 1000,
          }),
        ),
      );
    }
    expect(await until(async () => ((await analysed()).length === 2 ? analysed() : undefined), 'the queues analysed')).toEqual(['outbox', 'triggers']);

    const estimate = await store.pool.query<{ reltuples: number }>("SELECT reltuples FROM pg_class WHERE relname = 'triggers'");
    expect(Number(estimate.rows[0]?.reltuples)).toBeGreaterThan(500);
    expect((await store.triggers.claimNext('w1', 2000, 30_000))?.key).toBe('first');
    expect((await store.outbox.claimNext('w1', 2000, 30_000))?.key).toBe('first:received');
  });
});
