import type Database from 'better-sqlite3';
import type { ProcessRecord, ProcessRepository } from '../core/ports/store.js';
import { PROCESS_SQL, toProcessRecord, type ProcessRow } from './process-statements.js';
import { inWriteTransaction } from './write-transaction.js';

export class SqliteProcessRepository implements ProcessRepository {
  private readonly beat;
  private readonly stop;
  private readonly reapDead;
  private readonly running;
  private readonly recent;
  private readonly deleteOld;

  constructor(private readonly db: Database.Database) {
    this.beat = db.prepare<{ id: string; host: string; pid: number; now: number; until: number }>(PROCESS_SQL.heartbeat);
    this.stop = db.prepare<{ id: string; now: number }>(PROCESS_SQL.markStopped);
    this.reapDead = db.prepare<{ now: number }, { id: string }>(PROCESS_SQL.reap);
    this.running = db.prepare<{ host: string }, ProcessRow>(PROCESS_SQL.listRunning);
    this.recent = db.prepare<{ limit: number }, ProcessRow>(PROCESS_SQL.list);
    this.deleteOld = db.prepare<{ olderThan: number }>(PROCESS_SQL.prune);
  }

  async heartbeat(process: { id: string; host: string; pid: number }, now: number, ttlMs: number): Promise<void> {
    inWriteTransaction(this.db, () => this.beat.run({ id: process.id, host: process.host, pid: process.pid, now, until: now + ttlMs }));
  }

  async markStopped(id: string, now: number): Promise<void> {
    inWriteTransaction(this.db, () => this.stop.run({ id, now }));
  }

  async reap(now: number): Promise<string[]> {
    return inWriteTransaction(this.db, () => this.reapDead.all({ now })).map((row) => row.id);
  }

  async listRunning(host: string): Promise<ProcessRecord[]> {
    return this.running.all({ host }).map(toProcessRecord);
  }

  async list(limit: number): Promise<ProcessRecord[]> {
    return this.recent.all({ limit }).map(toProcessRecord);
  }

  async prune(olderThan: number): Promise<number> {
    return inWriteTransaction(this.db, () => this.deleteOld.run({ olderThan }).changes);
  }
}
