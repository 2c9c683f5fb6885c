import type Database from 'better-sqlite3';
import type { ScheduleFire, ScheduleFireRepository } from '../core/ports/store.js';
import { inWriteTransaction } from './write-transaction.js';

interface Row {
  schedule: string;
  slot: string;
  fired_at: number;
  status: string;
  reason: string | null;
  trigger_key: string | null;
  run_id: string | null;
}

/** A row as both stores return it. */
export function toScheduleFire(row: Row): ScheduleFire {
  return {
    schedule: row.schedule,
    slot: row.slot,
    firedAt: row.fired_at,
    status: row.status,
    reason: row.reason,
    triggerKey: row.trigger_key,
    runId: row.run_id,
  };
}

const COLUMNS = 'schedule, slot, fired_at, status, reason, trigger_key, run_id';

export class SqliteScheduleFireRepository implements ScheduleFireRepository {
  private readonly insertFire;
  private readonly updateFire;
  private readonly recent;

  constructor(private readonly db: Database.Database) {
    this.insertFire = db.prepare<{ schedule: string; slot: string; firedAt: number; status: string; reason: string | null; triggerKey: string | null }>(
      `INSERT INTO schedule_fires (schedule, slot, fired_at, status, reason, trigger_key, run_id)
       VALUES (@schedule, @slot, @firedAt, @status, @reason, @triggerKey, NULL)
       ON CONFLICT (schedule, slot) DO NOTHING`,
    );
    // One statement for every patch: a field changes only when its flag is 1.
    this.updateFire = db.prepare<{
      schedule: string;
      slot: string;
      setStatus: number;
      status: string | null;
      setReason: number;
      reason: string | null;
      setRunId: number;
      runId: string | null;
    }>(
      `UPDATE schedule_fires
       SET status = CASE WHEN @setStatus = 1 THEN @status ELSE status END,
           reason = CASE WHEN @setReason = 1 THEN @reason ELSE reason END,
           run_id = CASE WHEN @setRunId = 1 THEN @runId ELSE run_id END
       WHERE schedule = @schedule AND slot = @slot`,
    );
    this.recent = db.prepare<{ schedule: string; limit: number }, Row>(
      `SELECT ${COLUMNS} FROM schedule_fires WHERE schedule = @schedule ORDER BY fired_at DESC, id DESC LIMIT @limit`,
    );
  }

  async record(fire: { schedule: string; slot: string; firedAt: number; status: string; reason?: string; triggerKey?: string }): Promise<boolean> {
    const params = {
      schedule: fire.schedule,
      slot: fire.slot,
      firedAt: fire.firedAt,
      status: fire.status,
      reason: fire.reason ?? null,
      triggerKey: fire.triggerKey ?? null,
    };
    return inWriteTransaction(this.db, () => this.insertFire.run(params).changes) > 0;
  }

  async update(schedule: string, slot: string, patch: { status?: string; reason?: string | null; runId?: string | null }): Promise<void> {
    const params = {
      schedule,
      slot,
      setStatus: patch.status === undefined ? 0 : 1,
      status: patch.status ?? null,
      setReason: patch.reason === undefined ? 0 : 1,
      reason: patch.reason ?? null,
      setRunId: patch.runId === undefined ? 0 : 1,
      runId: patch.runId ?? null,
    };
    inWriteTransaction(this.db, () => this.updateFire.run(params));
  }

  async latest(schedule: string): Promise<ScheduleFire | undefined> {
    const row = this.recent.get({ schedule, limit: 1 });
    return row ? toScheduleFire(row) : undefined;
  }

  async list(schedule: string, limit: number): Promise<ScheduleFire[]> {
    return this.recent.all({ schedule, limit }).map(toScheduleFire);
  }
}
