import type pg from 'pg';
import { processOfOwner, type LeaseRepository } from '../../core/ports/store.js';
import { ACQUIRE_LEASE_SQL } from '../lease-repository.js';
import { row, run } from './pg-sql.js';

/*
 * The SQLite store's upsert, as it is. Two replicas racing for a lease: the conflict update locks the
 * row, and the second re-checks the WHERE against the first's new version, so only one holds it.
 */

export class PostgresLeaseRepository implements LeaseRepository {
  constructor(private readonly pool: pg.Pool) {}

  async acquire(name: string, owner: string, now: number, ttlMs: number): Promise<boolean> {
    const held = await row<{ owner: string }>(this.pool, ACQUIRE_LEASE_SQL, { name, owner, process: processOfOwner(owner), now, until: now + ttlMs });
    return held?.owner === owner;
  }

  async release(name: string, owner: string): Promise<void> {
    await run(this.pool, 'DELETE FROM leases WHERE name = @name AND owner = @owner', { name, owner });
  }
}
