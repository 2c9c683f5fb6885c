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

  /** Stores `count` triggers with a row owed each, in bursts of 100 submitted at once, at `now`. */
  async function burst(prefix: string, count: number, now: number): Promise<void> {
    for (let start = 0; start < count; start += 100) {
      await Promise.all(
        Array.from({ length: Math.min(100, count - start) }, (_, index) =>
          store.triggers.enqueue({
            trigger: aTrigger({ key: `${prefix}${start + index}`, anchor: `${prefix}a${start + index}` }),
            owed: [anOutboxRow(`${prefix}o${start + index}`, `${prefix}a${start + index}`)],
            now,
          }),
        ),
      );
    }
  }

  const analyses = async () =>
    Number((await store.pool.query<{ n: string }>("SELECT analyze_count AS n FROM pg_stat_user_tables WHERE relname = 'triggers'")).rows[0]?.n ?? 0);

  const analysed = async () =>
    (
      await store.pool.query<{ relname: string }>(
        "SELECT relname FROM pg_stat_user_tables WHERE relname IN ('triggers', 'outbox') AND last_analyze IS NOT NULL ORDER BY relname",
      )
    ).rows.map((row) => row.relname);

  it('analyses the trigger and outbox tables once a burst has stored enough, and a claim then reads the queue in order', async () => {
    await store.triggers.enqueue({ trigger: aTrigger({ key: 'first', anchor: 'first' }), owed: [anOutboxRow('first:received', 'first')], now: 1000 });
    expect(await analysed()).toEqual([]);

    await burst('k', 600, 1000);
    expect(await until(async () => ((await analysed()).length === 2 ? analysed() : undefined), 'the queues analysed')).toEqual(['outbox', 'triggers']);

    const estimate = await store.pool.query<{ reltuples: number }>("SELECT reltuples FROM pg_class WHERE relname = 'triggers'");
    expect(Number(estimate.rows[0]?.reltuples)).toBeGreaterThan(500);
    expect((await store.triggers.claimNext('w1', 2000, 30_000))?.key).toBe('first');
    expect((await store.outbox.claimNext('w1', 2000, 30_000))?.key).toBe('first:received');
  });

  it('analyses again once the callers’ clock says ANALYZE_EVERY_MS went by since the last, however little the wall clock moved', async () => {
    const before = await until(async () => ((await analyses()) > 0 ? analyses() : undefined), 'the first burst analysed');
    await burst('later', 500, 1000 + 5_000);
    expect(await until(async () => ((await analyses()) > before ? analyses() : undefined), 'the second burst analysed')).toBe(before + 1);
  });
});
