import type Database from 'better-sqlite3';
import type { EventKeyRepository } from '../core/ports/store.js';
import { inWriteTransaction } from './write-transaction.js';

export class SqliteEventKeyRepository implements EventKeyRepository {
  private readonly insertKey;
  private readonly deleteOld;
  private readonly findKey;
  private readonly raiseKey;

  constructor(private readonly db: Database.Database) {
    this.insertKey = db.prepare<{ key: string; now: number }>('INSERT INTO event_keys (key, seen_at) VALUES (@key, @now) ON CONFLICT (key) DO NOTHING');
    this.deleteOld = db.prepare<{ olderThan: number }>('DELETE FROM event_keys WHERE seen_at < @olderThan');
    this.findKey = db.prepare<{ key: string }, { found: number }>('SELECT 1 AS found FROM event_keys WHERE key = @key');
    // An equal time updates the row to itself: it counts as a change, so `at` at the watermark is not older.
    this.raiseKey = db.prepare<{ key: string; at: number }>(
      'INSERT INTO event_keys (key, seen_at) VALUES (@key, @at) ON CONFLICT (key) DO UPDATE SET seen_at = excluded.seen_at WHERE excluded.seen_at >= event_keys.seen_at',
    );
  }

  async remember(key: string, now: number): Promise<boolean> {
    return inWriteTransaction(this.db, () => this.rememberWithin(key, now));
  }

  /** `remember` inside a transaction the caller holds. */
  rememberWithin(key: string, now: number): boolean {
    return this.insertKey.run({ key, now }).changes > 0;
  }

  async has(key: string): Promise<boolean> {
    return this.findKey.get({ key }) !== undefined;
  }

  async advance(key: string, at: number): Promise<boolean> {
    return inWriteTransaction(this.db, () => this.raiseKey.run({ key, at }).changes > 0);
  }

  async prune(olderThan: number): Promise<number> {
    return inWriteTransaction(this.db, () => this.deleteOld.run({ olderThan }).changes);
  }
}
