import type Database from 'better-sqlite3';
import type { ProcessRecord, ProcessRepository } from '../core/ports/store.js';

/**
 * The claim condition that frees a row held by a process known to be gone (stopped, or silent past
 * its `alive_until`), for the claims of every repository. `column` names the row's holding process.
 * An unknown process (NULL, or never registered) frees nothing: its claim keeps the plain lease.
 * A primary-key lookup in a correlated subquery: SQLite and PostgreSQL both run it as it is.
 */
export function holderGone(column: string): string {
  return `EXISTS (SELECT 1 FROM processes AS holder WHERE holder.id = ${column} AND holder.alive_until <= @now)`;
}

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

export class SqliteProcessRepository implements ProcessRepository {
  private readonly beat;
  private readonly stop;
  private readonly reapDead;
  private readonly running;
  private readonly recent;
  private readonly deleteOld;

  constructor(private readonly db: Database.Database) {
    this.beat = db.prepare<{ id: string; host: string; pid: number; now: number; until: number }>(
      `INSERT INTO processes (id, host, pid, started_at, heartbeat_at, alive_until, stopped_at)
       VALUES (@id, @host, @pid, @now, @now, @until, NULL)
       ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at, alive_until = excluded.alive_until, stopped_at = NULL`,
    );
    // alive_until never moves later here: a stop only ever frees sooner.
    this.stop = db.prepare<{ id: string; now: number }>(
      `UPDATE processes
       SET stopped_at = @now, alive_until = CASE WHEN alive_until < @now THEN alive_until ELSE @now END
       WHERE id = @id`,
    );
    this.reapDead = db.prepare<{ now: number }, { id: string }>(
      'UPDATE processes SET stopped_at = @now WHERE stopped_at IS NULL AND alive_until <= @now RETURNING id',
    );
    this.running = db.prepare<{ host: string }, Row>('SELECT * FROM processes WHERE host = @host AND stopped_at IS NULL ORDER BY started_at, id');
    this.recent = db.prepare<{ limit: number }, Row>('SELECT * FROM processes ORDER BY started_at DESC, id DESC LIMIT @limit');
    this.deleteOld = db.prepare<{ olderThan: number }>('DELETE FROM processes WHERE alive_until < @olderThan');
  }

  async heartbeat(process: { id: string; host: string; pid: number }, now: number, ttlMs: number): Promise<void> {
    this.db.transaction(() => this.beat.run({ id: process.id, host: process.host, pid: process.pid, now, until: now + ttlMs })).immediate();
  }

  async markStopped(id: string, now: number): Promise<void> {
    this.db.transaction(() => this.stop.run({ id, now })).immediate();
  }

  async reap(now: number): Promise<string[]> {
    return this.db
      .transaction(() => this.reapDead.all({ now }))
      .immediate()
      .map((row) => row.id);
  }

  async listRunning(host: string): Promise<ProcessRecord[]> {
    return this.running.all({ host }).map(toRecord);
  }

  async list(limit: number): Promise<ProcessRecord[]> {
    return this.recent.all({ limit }).map(toRecord);
  }

  async prune(olderThan: number): Promise<number> {
    return this.db.transaction(() => this.deleteOld.run({ olderThan }).changes).immediate();
  }
}
