import type pg from 'pg';
import type { MeteredRun, NewOutboxRow, NewTrackedRun, RunObservation, TrackedRun, TrackedRunRepository } from '../../core/ports/store.js';
import { toFlag, toJson } from '../sql.js';
import { toTrackedRun, usageParams } from '../tracked-run-repository.js';
import type { ChangeSigner } from './change-listener.js';
import type { PostgresOutboxRepository } from './outbox-repository.js';
import { changes, rows, row, run } from './pg-sql.js';
import { owedCte, owedParams, WOKEN_CTE } from './owed-rows-insert.js';

type Row = Parameters<typeof toTrackedRun>[0];

/** Oldest seen first; never seen before all (PostgreSQL sorts NULLs last unless told). */
const OLDEST_SEEN_FIRST = 'ORDER BY last_seen_at ASC NULLS FIRST, run_id';

/**
 * A new run and its first observed state (transition 0) in ONE statement: atomic without BEGIN and
 * COMMIT, so one round trip instead of four. Nothing when the run is already stored.
 */
const INSERT_SQL = `
WITH inserted AS (
  INSERT INTO tracked_runs (run_id, anchor, source, title, route, destinations, trigger_key, state,
                            server_updated_at, session_link, key_owner, requester, route_name, transition, tracked, last_seen_at,
                            created_at, updated_at, traceparent)
  VALUES (@runId::text, @anchor::text, @source::text, @title::text, @route::text, @destinations::text, @triggerKey::text, @state::text,
          @serverUpdatedAt::text, @sessionLink::text, @personalKeyOwner::text, @requester::text, @routeName::text, 0, 1, NULL,
          @now::bigint, @now::bigint, @traceparent::text)
  ON CONFLICT (run_id) DO NOTHING
  RETURNING run_id, state, server_updated_at
),
observed AS (
  INSERT INTO run_states (run_id, transition, state, server_updated_at, observed_at)
  SELECT run_id, 0, state, server_updated_at, @now::bigint FROM inserted
  ON CONFLICT DO NOTHING
)
SELECT count(*) AS inserted FROM inserted`;

/**
 * A transition in ONE statement (atomic without BEGIN and COMMIT, one round trip — the tracker makes
 * one per changed run): the compare-and-set on the run's transition number, its observed state, the
 * rows it owes in order, and one wake-up of the outbox; nothing of it when another writer moved first.
 */
const RECORD_TRANSITION_SQL = `
WITH moved AS (
  UPDATE tracked_runs
  SET state = @state::text, server_updated_at = @serverUpdatedAt::text, session_link = @sessionLink::text, tracked = @tracked::integer,
      inference_cost = COALESCE(@inference::double precision, inference_cost), compute_cost = COALESCE(@compute::double precision, compute_cost),
      transition = transition + 1, last_seen_at = @now::bigint, updated_at = @now::bigint
  WHERE run_id = @runId::text AND transition = @expected::integer
  RETURNING run_id, transition
),
observed AS (
  INSERT INTO run_states (run_id, transition, state, server_updated_at, observed_at)
  SELECT run_id, transition, @state::text, @serverUpdatedAt::text, @now::bigint FROM moved
  ON CONFLICT DO NOTHING
),
${owedCte('EXISTS (SELECT 1 FROM moved)')},
${WOKEN_CTE}
SELECT (SELECT count(*) FROM moved) AS moved, (SELECT count(*) FROM woken) AS woken`;

export class PostgresTrackedRunRepository implements TrackedRunRepository {
  constructor(
    private readonly pool: pg.Pool,
    private readonly outbox: PostgresOutboxRepository,
    /** Signs the notification of the rows a transition owes and tells this store's listeners (change-listener.ts). */
    private readonly changes: ChangeSigner,
  ) {}

  async get(runId: string): Promise<TrackedRun | undefined> {
    const found = await row<Row>(this.pool, 'SELECT * FROM tracked_runs WHERE run_id = @runId', { runId });
    return found ? toTrackedRun(found) : undefined;
  }

  async getMany(runIds: readonly string[]): Promise<TrackedRun[]> {
    if (runIds.length === 0) return [];
    return (await rows<Row>(this.pool, 'SELECT * FROM tracked_runs WHERE run_id = ANY(@runIds::text[])', { runIds: [...runIds] })).map(toTrackedRun);
  }

  async countTracked(): Promise<number> {
    return (await row<{ n: number }>(this.pool, 'SELECT COUNT(*) AS n FROM tracked_runs WHERE tracked = 1'))?.n ?? 0;
  }

  async listTracked(options: { limit: number; afterRunId?: string }): Promise<TrackedRun[]> {
    const found =
      options.afterRunId === undefined
        ? await rows<Row>(this.pool, 'SELECT * FROM tracked_runs WHERE tracked = 1 ORDER BY run_id LIMIT @limit', { limit: options.limit })
        : await rows<Row>(this.pool, 'SELECT * FROM tracked_runs WHERE tracked = 1 AND run_id > @after ORDER BY run_id LIMIT @limit', {
            limit: options.limit,
            after: options.afterRunId,
          });
    return found.map(toTrackedRun);
  }

  async listActiveKeyOwners(): Promise<string[]> {
    const found = await rows<{ key_owner: string }>(
      this.pool,
      'SELECT DISTINCT key_owner FROM tracked_runs WHERE tracked = 1 AND key_owner IS NOT NULL ORDER BY key_owner',
    );
    return found.map((owner) => owner.key_owner);
  }

  async listTrackedByKeyOwner(personId: string, limit: number): Promise<TrackedRun[]> {
    const found = await rows<Row>(this.pool, 'SELECT * FROM tracked_runs WHERE tracked = 1 AND key_owner = @owner ORDER BY created_at, run_id LIMIT @limit', {
      owner: personId,
      limit,
    });
    return found.map(toTrackedRun);
  }

  async listTrackedByAnchorPrefix(prefix: string, limit: number): Promise<TrackedRun[]> {
    const pattern = `${prefix.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
    const found = await rows<Row>(
      this.pool,
      "SELECT * FROM tracked_runs WHERE tracked = 1 AND anchor LIKE @pattern ESCAPE '\\' ORDER BY created_at DESC, run_id LIMIT @limit",
      { pattern, limit },
    );
    return found.map(toTrackedRun);
  }

  async findBySessionLink(link: string): Promise<TrackedRun | undefined> {
    const found = await row<Row>(this.pool, 'SELECT * FROM tracked_runs WHERE session_link = @link ORDER BY created_at DESC, run_id LIMIT 1', { link });
    return found ? toTrackedRun(found) : undefined;
  }

  async listTrackedNotInStates(states: readonly string[], limit: number): Promise<TrackedRun[]> {
    const found = await rows<Row>(
      this.pool,
      `SELECT * FROM tracked_runs WHERE tracked = 1 AND state <> ALL (@states::text[]) ${OLDEST_SEEN_FIRST} LIMIT @limit`,
      { states: [...states], limit },
    );
    return found.map(toTrackedRun);
  }

  async listStale(seenBefore: number, limit: number): Promise<TrackedRun[]> {
    const found = await rows<Row>(
      this.pool,
      `SELECT * FROM tracked_runs WHERE tracked = 1 AND (last_seen_at IS NULL OR last_seen_at < @seenBefore) ${OLDEST_SEEN_FIRST} LIMIT @limit`,
      { seenBefore, limit },
    );
    return found.map(toTrackedRun);
  }

  async recordTransition(runId: string, expectedTransition: number, observation: RunObservation, owed: NewOutboxRow[], now: number): Promise<boolean> {
    const found = await row<{ moved: number; woken: number }>(this.pool, RECORD_TRANSITION_SQL, {
      runId,
      expected: expectedTransition,
      state: observation.state,
      serverUpdatedAt: observation.serverUpdatedAt,
      sessionLink: observation.sessionLink,
      tracked: toFlag(observation.tracked),
      ...usageParams(observation.usage),
      now,
      ...owedParams(owed),
      writer: this.changes.signature(),
    });
    if (Number(found?.woken ?? 0) > 0) this.changes.wrote('outbox');
    return Number(found?.moved ?? 0) > 0;
  }

  async touch(runIds: readonly string[], now: number): Promise<void> {
    if (runIds.length === 0) return;
    await run(this.pool, 'UPDATE tracked_runs SET last_seen_at = @now WHERE run_id = ANY (@ids::text[])', { ids: [...runIds], now });
  }

  async recordUsage(runs: readonly MeteredRun[], now: number): Promise<void> {
    if (runs.length === 0) return;
    const figures = runs.map((metered) => usageParams(metered.usage));
    await run(
      this.pool,
      `UPDATE tracked_runs
       SET inference_cost = COALESCE(metered.inference, inference_cost), compute_cost = COALESCE(metered.compute, compute_cost), last_seen_at = @now
       FROM unnest(@ids::text[], @inference::double precision[], @compute::double precision[]) AS metered(run_id, inference, compute)
       WHERE tracked_runs.run_id = metered.run_id`,
      { ids: runs.map((metered) => metered.runId), inference: figures.map((f) => f.inference), compute: figures.map((f) => f.compute), now },
    );
  }

  async retrack(runId: string, now: number): Promise<void> {
    await run(this.pool, 'UPDATE tracked_runs SET tracked = 1, updated_at = @now WHERE run_id = @runId', { runId, now });
  }

  async insert(item: NewTrackedRun, now: number): Promise<boolean> {
    const found = await row<{ inserted: number }>(this.pool, INSERT_SQL, {
      runId: item.runId,
      anchor: item.anchor,
      source: item.source,
      title: item.title,
      route: toJson(item.route),
      destinations: toJson(item.destinations),
      triggerKey: item.triggerKey,
      state: item.state,
      serverUpdatedAt: item.serverUpdatedAt,
      sessionLink: item.sessionLink,
      personalKeyOwner: item.personalKeyOwner ?? null,
      requester: item.askedBy ?? null,
      routeName: item.routeName ?? null,
      traceparent: item.traceparent ?? null,
      now,
    });
    return Number(found?.inserted ?? 0) > 0;
  }

  async recordWorkflowMove(runId: string, move: string, now: number): Promise<boolean> {
    const added = await changes(
      this.pool,
      `UPDATE tracked_runs SET workflow_moves = (workflow_moves::jsonb || to_jsonb(@move::text))::text, updated_at = @now
       WHERE run_id = @runId AND NOT jsonb_exists(workflow_moves::jsonb, @move::text)`,
      { runId, move, now },
    );
    return added > 0;
  }

  async addDestination(runId: string, destination: string, now: number): Promise<boolean> {
    const added = await changes(
      this.pool,
      `UPDATE tracked_runs SET destinations = (destinations::jsonb || to_jsonb(@destination::text))::text, updated_at = @now
       WHERE run_id = @runId AND NOT jsonb_exists(destinations::jsonb, @destination::text)`,
      { runId, destination, now },
    );
    return added > 0;
  }
}
