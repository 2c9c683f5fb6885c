import type { ProcessRecord } from '../core/ports/store.js';

/**
 * The statements of the processes table (see `ProcessRepository`), written once for both stores:
 * SQLite and PostgreSQL run them as they are (named `@params`; the PostgreSQL adapter numbers them).
 */

/**
 * The claim condition that frees a row held by a process known to be gone (stopped, or silent past
 * its `alive_until`), for the claims of every repository. `column` names the row's holding process.
 * An unknown process (NULL, or never registered) frees nothing: its claim keeps the plain lease.
 * A primary-key lookup in a correlated subquery.
 */
export function holderGone(column: string): string {
  return `EXISTS (SELECT 1 FROM processes AS holder WHERE holder.id = ${column} AND holder.alive_until <= @now)`;
}

/**
 * Claimed (`working` trigger, `sending` outbox row) but its holder is done with it: the lease ran out
 * or its process is gone. Claimable again, as a pending row is: by the claims, and in the `more_due`
 * column that says whether another claim would find something (`moreDueColumn`).
 */
export function abandoned(alias: string, working: 'working' | 'sending'): string {
  return `(${alias}.state = '${working}' AND (${alias}.lease_until <= @now OR ${holderGone(`${alias}.lease_process`)}))`;
}

export const PROCESS_SQL = {
  heartbeat: `INSERT INTO processes (id, host, pid, started_at, heartbeat_at, alive_until, stopped_at)
       VALUES (@id, @host, @pid, @now, @now, @until, NULL)
       ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at, alive_until = excluded.alive_until, stopped_at = NULL`,
  // alive_until never moves later here: a stop only ever frees sooner.
  markStopped: `UPDATE processes
       SET stopped_at = @now, alive_until = CASE WHEN alive_until < @now THEN alive_until ELSE @now END
       WHERE id = @id`,
  reap: 'UPDATE processes SET stopped_at = @now WHERE stopped_at IS NULL AND alive_until <= @now RETURNING id',
  listRunning: 'SELECT * FROM processes WHERE host = @host AND stopped_at IS NULL ORDER BY started_at, id',
  list: 'SELECT * FROM processes ORDER BY started_at DESC, id DESC LIMIT @limit',
  prune: 'DELETE FROM processes WHERE alive_until < @olderThan',
} as const;

export interface ProcessRow {
  id: string;
  host: string;
  pid: number;
  started_at: number;
  heartbeat_at: number;
  alive_until: number;
  stopped_at: number | null;
}

export function toProcessRecord(row: ProcessRow): ProcessRecord {
  return {
    id: row.id,
    host: row.host,
    pid: row.pid,
    startedAt: row.started_at,
    heartbeatAt: row.heartbeat_at,
    aliveUntil: row.alive_until,
    stoppedAt: row.stopped_at,
  };
}
