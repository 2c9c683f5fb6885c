import type pg from 'pg';
import type { ProcessRecord, ProcessRepository } from '../../core/ports/store.js';
import { PROCESS_SQL, toProcessRecord, type ProcessRow } from '../process-statements.js';
import { changes, rows, run } from './pg-sql.js';

/** The processes sharing the database (see `ProcessRepository`), with the SQLite store's statements. */
export class PostgresProcessRepository implements ProcessRepository {
  constructor(private readonly pool: pg.Pool) {}

  async heartbeat(process: { id: string; host: string; pid: number }, now: number, ttlMs: number): Promise<void> {
    await run(this.pool, PROCESS_SQL.heartbeat, { id: process.id, host: process.host, pid: process.pid, now, until: now + ttlMs });
  }

  async markStopped(id: string, now: number): Promise<void> {
    await run(this.pool, PROCESS_SQL.markStopped, { id, now });
  }

  async reap(now: number): Promise<string[]> {
    const reaped = await rows<{ id: string }>(this.pool, PROCESS_SQL.reap, { now });
    return reaped.map((item) => item.id);
  }

  async listRunning(host: string): Promise<ProcessRecord[]> {
    return (await rows<ProcessRow>(this.pool, PROCESS_SQL.listRunning, { host })).map(toProcessRecord);
  }

  async list(limit: number): Promise<ProcessRecord[]> {
    return (await rows<ProcessRow>(this.pool, PROCESS_SQL.list, { limit })).map(toProcessRecord);
  }

  async prune(olderThan: number): Promise<number> {
    return changes(this.pool, PROCESS_SQL.prune, { olderThan });
  }
}
