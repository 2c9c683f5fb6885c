import type Database from 'better-sqlite3';
import type { EventKeyRepository } from '../core/store.js';

export class SqliteEventKeyRepository implements EventKeyRepository {
  private readonly insertKey;
  private readonly deleteOld;

  constructor(private readonly db: Database.Database) {
    this.insertKey = db.prepare<{ key: string; now: number }>(
      'INSERT INTO event_keys (key, seen_at) VALUES (@key, @now) ON CONFLICT (key) DO NOTHING',
    );
    this.deleteOld = db.prepare<{ olderThan: number }>('DELETE FROM event_keys WHERE seen_at < @olderThan');
  }

  async remember(key: string, now: number): Promise<boolean> {
    return this.db.transaction(() => this.insertKey.run({ key, now }).changes).immediate() > 0;
  }

  async prune(olderThan: number): Promise<number> {
    return this.db.transaction(() => this.deleteOld.run({ olderThan }).changes).immediate();
  }
}
