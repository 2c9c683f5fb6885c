import type pg from 'pg';
import type { ScheduleFire, ScheduleFireRepository } from '../../core/ports/store.js';
import { toScheduleFire } from '../schedule-fire-repository.js';
import { changes, rows, run } from './pg-sql.js';

type Row = Parameters<typeof toScheduleFire>[0];

const COLUMNS = 'schedule, slot, fired_at, status, reason, trigger_key, run_id';

export class PostgresScheduleFireRepository implements ScheduleFireRepository {
  constructor(private readonly pool: pg.Pool) {}

  async record(fire: { schedule: string; slot: string; firedAt: number; status: string; reason?: string; triggerKey?: string }): Promise<boolean> {
    const inserted = await changes(
      this.pool,
      `INSERT INTO schedule_fires (schedule, slot, fired_at, status, reason, trigger_key, run_id)
       VALUES (@schedule, @slot, @firedAt, @status, @reason, @triggerKey, NULL)
       ON CONFLICT (schedule, slot) DO NOTHING`,
      {
        schedule: fire.schedule,
        slot: fire.slot,
        firedAt: fire.firedAt,
        status: fire.status,
        reason: fire.reason ?? null,
        triggerKey: fire.triggerKey ?? null,
      },
    );
    return inserted > 0;
  }

  async update(schedule: string, slot: string, patch: { status?: string; reason?: string | null; runId?: string | null }): Promise<void> {
    // One statement for every patch: a field changes only when its flag is 1.
    await run(
      this.pool,
      `UPDATE schedule_fires
       SET status = CASE WHEN @setStatus::int = 1 THEN @status::text ELSE status END,
           reason = CASE WHEN @setReason::int = 1 THEN @reason::text ELSE reason END,
           run_id = CASE WHEN @setRunId::int = 1 THEN @runId::text ELSE run_id END
       WHERE schedule = @schedule AND slot = @slot`,
      {
        schedule,
        slot,
        setStatus: patch.status === undefined ? 0 : 1,
        status: patch.status ?? null,
        setReason: patch.reason === undefined ? 0 : 1,
        reason: patch.reason ?? null,
        setRunId: patch.runId === undefined ? 0 : 1,
        runId: patch.runId ?? null,
      },
    );
  }

  async latest(schedule: string): Promise<ScheduleFire | undefined> {
    return (await this.list(schedule, 1))[0];
  }

  async list(schedule: string, limit: number): Promise<ScheduleFire[]> {
    const found = await rows<Row>(this.pool, `SELECT ${COLUMNS} FROM schedule_fires WHERE schedule = @schedule ORDER BY fired_at DESC, id DESC LIMIT @limit`, {
      schedule,
      limit,
    });
    return found.map(toScheduleFire);
  }
}
