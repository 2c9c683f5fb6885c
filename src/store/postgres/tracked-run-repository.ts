import type pg from 'pg';
import type { NewOutboxRow, NewTrackedRun, RunObservation, TrackedRun, TrackedRunRepository } from '../../core/ports/store.js';
import { toFlag, toJson } from '../sql.js';
import { toTrackedRun } from '../tracked-run-repository.js';
import type { PostgresOutboxRepository } from './outbox-repository.js';
import { changes, Rollback, rows, row, run, transaction, type Queryable } from './pg-sql.js';

type Row = Parameters<typeof toTrackedRun>[0];

/** Oldest seen first; never seen before all (PostgreSQL sorts NULLs last unless told). */
const OLDEST_SEEN_FIRST = 'ORDER BY last_seen_at ASC NULLS FIRST, run_id';

const INSERT_SQL = `
INSERT INTO tracked_runs (run_id, anchor, source, title, route, destinations, trigger_key, state,
                          server_updated_at, session_link, key_owner, transition, tracked, last_seen_at,
                          created_at, updated_at)
VALUES (@runId, @anchor, @source, @title, @route, @destinations, @triggerKey, @state,
        @serverUpdatedAt, @sessionLink, @keyOwner, 0, 1, NULL, @now, @now)
ON CONFLICT (run_id) DO NOTHING`;

/** Each observed state (migration 6), written with the change that observed it. */
const OBSERVED_STATE_SQL = `
INSERT INTO run_states (run_id, transition, state, server_updated_at, observed_at)
VALUES (@runId, @transition, @state, @serverUpdatedAt, @now) ON CONFLICT DO NOTHING`;

export class PostgresTrackedRunRepository implements TrackedRunRepository {
  constructor(
    private readonly pool: pg.Pool,
    private readonly outbox: PostgresOutboxRepository,
  ) {}

  /** Inserts the run inside the caller's transaction; true if it was new. */
  async insertWithin(client: Queryable, item: NewTrackedRun, now: number): Promise<boolean> {
    const inserted = await changes(client, INSERT_SQL, {
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
      keyOwner: item.keyOwner ?? null,
      now,
    });
    if (inserted > 0)
      await run(client, OBSERVED_STATE_SQL, { runId: item.runId, transition: 0, state: item.state, serverUpdatedAt: item.serverUpdatedAt, now });
    return inserted > 0;
  }

  /** Tracks the run again inside the caller's transaction. */
  async retrackWithin(client: Queryable, runId: string, now: number): Promise<void> {
    await run(client, 'UPDATE tracked_runs SET tracked = 1, updated_at = @now WHERE run_id = @runId', { runId, now });
  }

  async get(runId: string): Promise<TrackedRun | undefined> {
    const found = await row<Row>(this.pool, 'SELECT * FROM tracked_runs WHERE run_id = @runId', { runId });
    return found ? toTrackedRun(found) : undefined;
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
    return transaction(this.pool, async (client) => {
      const changed = await changes(
        client,
        `UPDATE tracked_runs
         SET state = @state, server_updated_at = @serverUpdatedAt, session_link = @sessionLink, tracked = @tracked,
             transition = transition + 1, last_seen_at = @now, updated_at = @now
         WHERE run_id = @runId AND transition = @expected`,
        {
          runId,
          expected: expectedTransition,
          state: observation.state,
          serverUpdatedAt: observation.serverUpdatedAt,
          sessionLink: observation.sessionLink,
          tracked: toFlag(observation.tracked),
          now,
        },
      );
      if (changed === 0) return new Rollback(false);
      await run(client, OBSERVED_STATE_SQL, {
        runId,
        transition: expectedTransition + 1,
        state: observation.state,
        serverUpdatedAt: observation.serverUpdatedAt,
        now,
      });
      await this.outbox.addWithin(client, owed, now);
      return true;
    });
  }

  async touch(runIds: readonly string[], now: number): Promise<void> {
    if (runIds.length === 0) return;
    await run(this.pool, 'UPDATE tracked_runs SET last_seen_at = @now WHERE run_id = ANY (@ids::text[])', { ids: [...runIds], now });
  }

  async retrack(runId: string, now: number): Promise<void> {
    await this.retrackWithin(this.pool, runId, now);
  }

  async insert(item: NewTrackedRun, now: number): Promise<boolean> {
    // The run and its first observed state together.
    return transaction(this.pool, (client) => this.insertWithin(client, item, now));
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
