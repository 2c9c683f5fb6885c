import type pg from 'pg';
import type { EventKeyRepository } from '../../core/ports/store.js';
import { changes, row, type Queryable } from './pg-sql.js';

export class PostgresEventKeyRepository implements EventKeyRepository {
  constructor(private readonly pool: pg.Pool) {}

  async remember(key: string, now: number): Promise<boolean> {
    return this.rememberWithin(this.pool, key, now);
  }

  /** `remember` inside a transaction the caller holds. */
  async rememberWithin(client: Queryable, key: string, now: number): Promise<boolean> {
    return (await changes(client, 'INSERT INTO event_keys (key, seen_at) VALUES (@key, @now) ON CONFLICT (key) DO NOTHING', { key, now })) > 0;
  }

  async has(key: string): Promise<boolean> {
    return (await row(this.pool, 'SELECT 1 AS found FROM event_keys WHERE key = @key', { key })) !== undefined;
  }

  async advance(key: string, at: number): Promise<boolean> {
    // An equal time updates the row to itself: it counts as a change, so `at` at the watermark is not older.
    const sql =
      'INSERT INTO event_keys (key, seen_at) VALUES (@key, @at) ON CONFLICT (key) DO UPDATE SET seen_at = EXCLUDED.seen_at WHERE EXCLUDED.seen_at >= event_keys.seen_at';
    return (await changes(this.pool, sql, { key, at })) > 0;
  }

  async prune(olderThan: number): Promise<number> {
    return changes(this.pool, 'DELETE FROM event_keys WHERE seen_at < @olderThan', { olderThan });
  }
}
