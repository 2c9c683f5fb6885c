import type pg from 'pg';
import type { ProcessRecord, ProcessRepository } from '../../core/ports/store.js';
import { changes, rows, run } from './pg-sql.js';

interface Row {
  id: string;
  host: string;
  pid: number;
  started_at: number;
  heartbeat_at: number;
  alive_until: number;
  stopped_at: number | null;
}

function toRecord(row: Row): ProcessRecord {
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

/** The processes sharing the database (see `ProcessRepository`), with the SQLite store's statements. */
export class PostgresProcessRepository implements ProcessRepository {
  constructor(private readonly pool: pg.Pool) {}

  async heartbeat(process: { id: string; host: string; pid: number }, now: number, ttlMs: number): Promise<void> {
    await run(
      this.pool,
      `INSERT INTO processes (id, host, pid, started_at, heartbeat_at, alive_until, stopped_at)
       VALUES (@id, @host, @pid, @now, @now, @until, NULL)
       ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at, alive_until = excluded.alive_until, stopped_at = NULL`,
      { id: process.id, host: process.host, pid: process.pid, now, until: now + ttlMs },
    );
  }

  async markStopped(id: string, now: number): Promise<void> {
    // alive_until never moves later here: a stop only ever frees sooner.
    await run(
      this.pool,
      `UPDATE processes
       SET stopped_at = @now, alive_until = CASE WHEN alive_until < @now THEN alive_until ELSE @now END
       WHERE id = @id`,
      { id, now },
    );
  }

  async reap(now: number): Promise<string[]> {
    const reaped = await rows<{ id: string }>(
      this.pool,
      'UPDATE processes SET stopped_at = @now WHERE stopped_at IS NULL AND alive_until <= @now RETURNING id',
      { now },
    );
    return reaped.map((item) => item.id);
  }

  async listRunning(host: string): Promise<ProcessRecord[]> {
    return (await rows<Row>(this.pool, 'SELECT * FROM processes WHERE host = @host AND stopped_at IS NULL ORDER BY started_at, id', { host })).map(toRecord);
  }

  async list(limit: number): Promise<ProcessRecord[]> {
    return (await rows<Row>(this.pool, 'SELECT * FROM processes ORDER BY started_at DESC, id DESC LIMIT @limit', { limit })).map(toRecord);
  }

  async prune(olderThan: number): Promise<number> {
    return changes(this.pool, 'DELETE FROM processes WHERE alive_until < @olderThan', { olderThan });
  }
}
