import type Database from 'better-sqlite3';
import { processOfOwner, type LeaseRepository } from '../core/ports/store.js';
import { holderGone } from './process-statements.js';
import { inWriteTransaction } from './write-transaction.js';

/**
 * Takes a free or expired lease, or one whose holder's process is gone, or renews one `owner` holds,
 * in one upsert; the conflict update applies only under its WHERE, and RETURNING yields a row only
 * when it applied (or inserted). The PostgreSQL store runs the same statement.
 */
export const ACQUIRE_LEASE_SQL = `
INSERT INTO leases (name, owner, process, lease_until, acquired_at) VALUES (@name, @owner, @process, @until, @now)
ON CONFLICT (name) DO UPDATE
  SET owner = excluded.owner,
      process = excluded.process,
      lease_until = excluded.lease_until,
      acquired_at = CASE WHEN leases.owner = excluded.owner THEN leases.acquired_at ELSE excluded.acquired_at END
  WHERE leases.lease_until <= @now OR leases.owner = excluded.owner OR ${holderGone('leases.process')}
RETURNING owner`;

export class SqliteLeaseRepository implements LeaseRepository {
  private readonly acquireLease;
  private readonly releaseLease;

  constructor(private readonly db: Database.Database) {
    this.acquireLease = db.prepare<{ name: string; owner: string; process: string; now: number; until: number }, { owner: string }>(ACQUIRE_LEASE_SQL);
    this.releaseLease = db.prepare<{ name: string; owner: string }>('DELETE FROM leases WHERE name = @name AND owner = @owner');
  }

  async acquire(name: string, owner: string, now: number, ttlMs: number): Promise<boolean> {
    const row = inWriteTransaction(this.db, () => this.acquireLease.get({ name, owner, process: processOfOwner(owner), now, until: now + ttlMs }));
    return row?.owner === owner;
  }

  async release(name: string, owner: string): Promise<void> {
    inWriteTransaction(this.db, () => this.releaseLease.run({ name, owner }));
  }
}
