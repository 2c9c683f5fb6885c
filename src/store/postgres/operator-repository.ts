import type pg from 'pg';
import type { ObservedState, OperatorRepository, OutboxRow, RunCursor, RunFilter, RunListItem, StoredTrigger } from '../../core/ports/store.js';
import { runFilterSql, toObservedState, toRunListItem } from '../operator-repository.js';
import { toOutboxRow } from '../outbox-repository.js';
import { toTrigger } from '../trigger-repository.js';
import { changes, rows } from './pg-sql.js';

type RunRow = Parameters<typeof toRunListItem>[0];

/**
 * The payload is cast to `json` (not `jsonb`, which refuses the `\u0000` escapes SQLite keeps) only
 * where a filter reads it; who asked is read from the same columns as on SQLite.
 */
const PG_DIALECT = {
  requesterId: "(t.payload::json #>> '{requester,id}')",
  requesterPlatform: "(t.payload::json #>> '{requester,platform}')",
  requesterName: "(t.payload::json #>> '{requester,name}')",
  routeName: "(r.route::json #>> '{config,name}')",
  like: 'ILIKE',
  jsonTexts: (param: string) => `SELECT json_array_elements_text(${param}::json)`,
};

export class PostgresOperatorRepository implements OperatorRepository {
  constructor(private readonly pool: pg.Pool) {}

  async listRuns(query: RunFilter & { limit: number; after?: RunCursor }): Promise<RunListItem[]> {
    const { where, params } = runFilterSql(query, PG_DIALECT);
    const found = await rows<RunRow>(
      this.pool,
      `SELECT r.*, t.payload AS trigger_payload FROM tracked_runs AS r LEFT JOIN triggers AS t ON t.key = r.trigger_key
       ${where} ORDER BY r.created_at DESC, r.run_id DESC LIMIT @limit`,
      { ...params, limit: query.limit },
    );
    return found.map((row) => toRunListItem({ ...row, ...requesterOf((row as RunRow & { trigger_payload: string | null }).trigger_payload) }));
  }

  async states(runId: string): Promise<ObservedState[]> {
    return (await rows<Parameters<typeof toObservedState>[0]>(this.pool, 'SELECT * FROM run_states WHERE run_id = @runId ORDER BY transition', { runId })).map(
      toObservedState,
    );
  }

  async triggersOfRun(runId: string, triggerKey: string | null): Promise<StoredTrigger[]> {
    const found = await rows<Parameters<typeof toTrigger>[0]>(this.pool, 'SELECT * FROM triggers WHERE run_id = @runId OR key = @key ORDER BY id', {
      runId,
      key: triggerKey,
    });
    return found.map(toTrigger);
  }

  async failedDeliveries(limit: number): Promise<OutboxRow[]> {
    const found = await rows<Parameters<typeof toOutboxRow>[0]>(
      this.pool,
      "SELECT * FROM outbox WHERE state = 'failed' AND dismissed_at IS NULL ORDER BY id DESC LIMIT @limit",
      { limit },
    );
    return found.map(toOutboxRow);
  }

  async failedTriggers(limit: number): Promise<StoredTrigger[]> {
    const found = await rows<Parameters<typeof toTrigger>[0]>(
      this.pool,
      "SELECT * FROM triggers WHERE state = 'failed' AND dismissed_at IS NULL ORDER BY id DESC LIMIT @limit",
      { limit },
    );
    return found.map(toTrigger);
  }

  async retryDelivery(id: number, now: number): Promise<boolean> {
    const changed = await changes(
      this.pool,
      `UPDATE outbox SET state = 'pending', next_attempt_at = @now, dismissed_at = NULL,
              lease_owner = NULL, lease_process = NULL, lease_until = NULL
       WHERE id = @id AND state = 'failed'`,
      { id, now },
    );
    return changed > 0;
  }

  async dismissDelivery(id: number, now: number): Promise<boolean> {
    return (await changes(this.pool, "UPDATE outbox SET dismissed_at = @now WHERE id = @id AND state = 'failed' AND dismissed_at IS NULL", { id, now })) > 0;
  }

  async retryTrigger(id: number, now: number): Promise<boolean> {
    const changed = await changes(
      this.pool,
      `UPDATE triggers SET state = 'pending', next_attempt_at = @now, dismissed_at = NULL, updated_at = @now,
              lease_owner = NULL, lease_process = NULL, lease_until = NULL
       WHERE id = @id AND state = 'failed'`,
      { id, now },
    );
    return changed > 0;
  }

  async dismissTrigger(id: number, now: number): Promise<boolean> {
    return (await changes(this.pool, "UPDATE triggers SET dismissed_at = @now WHERE id = @id AND state = 'failed' AND dismissed_at IS NULL", { id, now })) > 0;
  }
}

/** Who asked, from the starting trigger's payload (parsed here, so a payload PostgreSQL's JSON would refuse still lists). */
function requesterOf(payload: string | null): { requester_id: string | null; requester_name: string | null } {
  if (payload === null) return { requester_id: null, requester_name: null };
  const requester = (JSON.parse(payload) as { requester?: { id?: unknown; name?: unknown } }).requester;
  return {
    requester_id: typeof requester?.id === 'string' ? requester.id : null,
    requester_name: typeof requester?.name === 'string' ? requester.name : null,
  };
}
