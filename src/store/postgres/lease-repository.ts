import type pg from 'pg';
import { processOfOwner, type LeaseRepository } from '../../core/ports/store.js';
import { holderGone } from '../process-repository.js';
import { row, run } from './pg-sql.js';

/**
 * As on SQLite: takes a free or expired lease, or one whose holder's process is gone, or renews one
 * `owner` holds, in one upsert. Two replicas racing for it: the conflict update locks the row, and the
 * second re-checks the WHERE against the first's new version, so only one of them holds it.
 */
const ACQUIRE_SQL = `
INSERT INTO leases (name, owner, process, lease_until, acquired_at) VALUES (@name, @owner, @process, @until, @now)
ON CONFLICT (name) DO UPDATE
  SET owner = excluded.owner,
      process = excluded.process,
      lease_until = excluded.lease_until,
      acquired_at = CASE WHEN leases.owner = excluded.owner THEN leases.acquired_at ELSE excluded.acquired_at END
  WHERE leases.lease_until <= @now OR leases.owner = excluded.owner OR ${holderGone('leases.process')}
RETURNING owner`;

export class PostgresLeaseRepository implements LeaseRepository {
  constructor(private readonly pool: pg.Pool) {}

  async acquire(name: string, owner: string, now: number, ttlMs: number): Promise<boolean> {
    const held = await row<{ owner: string }>(this.pool, ACQUIRE_SQL, { name, owner, process: processOfOwner(owner), now, until: now + ttlMs });
    return held?.owner === owner;
  }

  async release(name: string, owner: string): Promise<void> {
    await run(this.pool, 'DELETE FROM leases WHERE name = @name AND owner = @owner', { name, owner });
  }
}
