import type Database from 'better-sqlite3';
import type { MeteredRun, NewOutboxRow, NewTrackedRun, RunObservation, RunUsage, TrackedRun, TrackedRunRepository } from '../core/ports/store.js';
import type { SqliteOutboxRepository } from './outbox-repository.js';
import { fromJson, toFlag, toJson } from './sql.js';
import { inWriteTransaction } from './write-transaction.js';

interface Row {
  run_id: string;
  anchor: string;
  source: string;
  title: string | null;
  route: string;
  destinations: string;
  trigger_key: string | null;
  traceparent: string | null;
  state: string;
  server_updated_at: string | null;
  session_link: string | null;
  key_owner: string | null;
  requester: string | null;
  route_name: string | null;
  inference_cost: number | null;
  compute_cost: number | null;
  transition: number;
  workflow_moves: string;
  tracked: number;
  last_seen_at: number | null;
  created_at: number;
  updated_at: number;
}

/** A row as both stores return it. */
export function toTrackedRun(row: Row): TrackedRun {
  const run: TrackedRun = {
    runId: row.run_id,
    anchor: row.anchor,
    source: row.source,
    title: row.title,
    route: fromJson(row.route),
    destinations: fromJson(row.destinations) as string[],
    triggerKey: row.trigger_key,
    traceparent: row.traceparent,
    state: row.state,
    serverUpdatedAt: row.server_updated_at,
    sessionLink: row.session_link,
    transition: row.transition,
    workflowMoves: fromJson(row.workflow_moves) as string[],
    tracked: row.tracked === 1,
    lastSeenAt: row.last_seen_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
  // Absent rather than null for the service key, as on NewTrackedRun.
  if (row.key_owner !== null && row.key_owner !== undefined) run.personalKeyOwner = row.key_owner;
  if (row.requester !== null && row.requester !== undefined) run.askedBy = row.requester;
  if (row.route_name !== null && row.route_name !== undefined) run.routeName = row.route_name;
  const usage = usageOfRow(row);
  if (usage) run.usage = usage;
  return run;
}

/** The stored usage figures; undefined while none was reported. */
function usageOfRow(row: Row): RunUsage | undefined {
  const usage: RunUsage = {
    ...(row.inference_cost !== null && row.inference_cost !== undefined && { inferenceCost: row.inference_cost }),
    ...(row.compute_cost !== null && row.compute_cost !== undefined && { computeCost: row.compute_cost }),
  };
  return Object.keys(usage).length > 0 ? usage : undefined;
}

/** A usage report's figures as statement parameters (null: not reported, the stored figure stays). */
export function usageParams(usage: RunUsage | undefined): { inference: number | null; compute: number | null } {
  return { inference: usage?.inferenceCost ?? null, compute: usage?.computeCost ?? null };
}

/** Oldest seen first; never seen before all (NULLS FIRST is spelled out: PostgreSQL sorts NULLs last). */
const OLDEST_SEEN_FIRST = 'ORDER BY last_seen_at ASC NULLS FIRST, run_id';

export class SqliteTrackedRunRepository implements TrackedRunRepository {
  private readonly byId;
  private readonly byIds;
  private readonly countRows;
  private readonly pageFirst;
  private readonly byAnchorPrefix;
  private readonly bySessionLink;
  private readonly pageAfter;
  private readonly notInStates;
  private readonly stale;
  private readonly transitionRow;
  private readonly touchRows;
  private readonly meterRows;
  private readonly retrackRow;
  private readonly insertRow;
  private readonly addMove;
  private readonly addPlace;
  private readonly observedState;
  private readonly keyOwners;
  private readonly byKeyOwner;

  constructor(
    private readonly db: Database.Database,
    private readonly outbox: SqliteOutboxRepository,
  ) {
    this.byId = db.prepare<[string], Row>('SELECT * FROM tracked_runs WHERE run_id = ?');
    this.byIds = db.prepare<[string], Row>('SELECT * FROM tracked_runs WHERE run_id IN (SELECT value FROM json_each(?))');
    this.countRows = db.prepare<[], number>('SELECT COUNT(*) FROM tracked_runs WHERE tracked = 1').pluck();
    this.pageFirst = db.prepare<{ limit: number }, Row>('SELECT * FROM tracked_runs WHERE tracked = 1 ORDER BY run_id LIMIT @limit');
    this.byAnchorPrefix = db.prepare<{ pattern: string; limit: number }, Row>(
      "SELECT * FROM tracked_runs WHERE tracked = 1 AND anchor LIKE @pattern ESCAPE '\\' ORDER BY created_at DESC, run_id LIMIT @limit",
    );
    this.bySessionLink = db.prepare<[string], Row>('SELECT * FROM tracked_runs WHERE session_link = ? ORDER BY created_at DESC, run_id LIMIT 1');
    this.pageAfter = db.prepare<{ limit: number; after: string }, Row>(
      'SELECT * FROM tracked_runs WHERE tracked = 1 AND run_id > @after ORDER BY run_id LIMIT @limit',
    );
    // The list of states is bound as one JSON array (json_each); PostgreSQL binds an array (<> ALL($1)).
    this.notInStates = db.prepare<{ states: string; limit: number }, Row>(
      `SELECT * FROM tracked_runs
       WHERE tracked = 1 AND state NOT IN (SELECT value FROM json_each(@states))
       ${OLDEST_SEEN_FIRST} LIMIT @limit`,
    );
    this.stale = db.prepare<{ seenBefore: number; limit: number }, Row>(
      `SELECT * FROM tracked_runs
       WHERE tracked = 1 AND (last_seen_at IS NULL OR last_seen_at < @seenBefore)
       ${OLDEST_SEEN_FIRST} LIMIT @limit`,
    );
    this.transitionRow = db.prepare<{
      runId: string;
      expected: number;
      state: string;
      serverUpdatedAt: string | null;
      sessionLink: string | null;
      tracked: number;
      inference: number | null;
      compute: number | null;
      now: number;
    }>(
      `UPDATE tracked_runs
       SET state = @state, server_updated_at = @serverUpdatedAt, session_link = @sessionLink, tracked = @tracked,
           inference_cost = COALESCE(@inference, inference_cost), compute_cost = COALESCE(@compute, compute_cost),
           transition = transition + 1, last_seen_at = @now, updated_at = @now
       WHERE run_id = @runId AND transition = @expected`,
    );
    this.touchRows = db.prepare<{ ids: string; now: number }>(
      'UPDATE tracked_runs SET last_seen_at = @now WHERE run_id IN (SELECT value FROM json_each(@ids))',
    );
    this.meterRows = db.prepare<{ runs: string; now: number }>(
      `UPDATE tracked_runs
       SET inference_cost = COALESCE(metered.inference, inference_cost), compute_cost = COALESCE(metered.compute, compute_cost), last_seen_at = @now
       FROM (SELECT value ->> '$.runId' AS run_id, value ->> '$.inference' AS inference, value ->> '$.compute' AS compute
             FROM json_each(@runs)) AS metered
       WHERE tracked_runs.run_id = metered.run_id`,
    );
    this.retrackRow = db.prepare<{ runId: string; now: number }>('UPDATE tracked_runs SET tracked = 1, updated_at = @now WHERE run_id = @runId');
    this.insertRow = db.prepare<{
      runId: string;
      anchor: string;
      source: string;
      title: string | null;
      route: string;
      destinations: string;
      triggerKey: string | null;
      state: string;
      serverUpdatedAt: string | null;
      sessionLink: string | null;
      personalKeyOwner: string | null;
      requester: string | null;
      routeName: string | null;
      traceparent: string | null;
      now: number;
    }>(
      `INSERT INTO tracked_runs (run_id, anchor, source, title, route, destinations, trigger_key, state,
                                 server_updated_at, session_link, key_owner, requester, route_name, transition, tracked, last_seen_at,
                                 created_at, updated_at, traceparent)
       VALUES (@runId, @anchor, @source, @title, @route, @destinations, @triggerKey, @state,
               @serverUpdatedAt, @sessionLink, @personalKeyOwner, @requester, @routeName, 0, 1, NULL, @now, @now, @traceparent)
       ON CONFLICT (run_id) DO NOTHING`,
    );
    this.addMove = db.prepare<{ runId: string; move: string; now: number }>(
      `UPDATE tracked_runs SET workflow_moves = json_insert(workflow_moves, '$[#]', @move), updated_at = @now
       WHERE run_id = @runId AND NOT EXISTS (SELECT 1 FROM json_each(tracked_runs.workflow_moves) WHERE value = @move)`,
    );
    this.addPlace = db.prepare<{ runId: string; destination: string; now: number }>(
      `UPDATE tracked_runs SET destinations = json_insert(destinations, '$[#]', @destination), updated_at = @now
       WHERE run_id = @runId AND NOT EXISTS (SELECT 1 FROM json_each(tracked_runs.destinations) WHERE value = @destination)`,
    );
    this.observedState = db.prepare<{ runId: string; transition: number; state: string; serverUpdatedAt: string | null; now: number }>(
      `INSERT INTO run_states (run_id, transition, state, server_updated_at, observed_at)
       VALUES (@runId, @transition, @state, @serverUpdatedAt, @now) ON CONFLICT DO NOTHING`,
    );
    this.keyOwners = db
      .prepare<[], string>('SELECT DISTINCT key_owner FROM tracked_runs WHERE tracked = 1 AND key_owner IS NOT NULL ORDER BY key_owner')
      .pluck();
    this.byKeyOwner = db.prepare<{ owner: string; limit: number }, Row>(
      'SELECT * FROM tracked_runs WHERE tracked = 1 AND key_owner = @owner ORDER BY created_at, run_id LIMIT @limit',
    );
  }

  /** Inserts the run inside the caller's transaction; true if it was new. */
  insertWithin(run: NewTrackedRun, now: number): boolean {
    const { changes } = this.insertRow.run({
      runId: run.runId,
      anchor: run.anchor,
      source: run.source,
      title: run.title,
      route: toJson(run.route),
      destinations: toJson(run.destinations),
      triggerKey: run.triggerKey,
      state: run.state,
      serverUpdatedAt: run.serverUpdatedAt,
      sessionLink: run.sessionLink,
      personalKeyOwner: run.personalKeyOwner ?? null,
      requester: run.askedBy ?? null,
      routeName: run.routeName ?? null,
      traceparent: run.traceparent ?? null,
      now,
    });
    if (changes > 0) this.observedState.run({ runId: run.runId, transition: 0, state: run.state, serverUpdatedAt: run.serverUpdatedAt, now });
    return changes > 0;
  }

  /** Tracks the run again inside the caller's transaction. */
  retrackWithin(runId: string, now: number): void {
    this.retrackRow.run({ runId, now });
  }

  async get(runId: string): Promise<TrackedRun | undefined> {
    const row = this.byId.get(runId);
    return row ? toTrackedRun(row) : undefined;
  }

  async getMany(runIds: readonly string[]): Promise<TrackedRun[]> {
    if (runIds.length === 0) return [];
    return this.byIds.all(JSON.stringify(runIds)).map(toTrackedRun);
  }

  async countTracked(): Promise<number> {
    return this.countRows.get() ?? 0;
  }

  async listTracked(options: { limit: number; afterRunId?: string }): Promise<TrackedRun[]> {
    const rows =
      options.afterRunId === undefined ? this.pageFirst.all({ limit: options.limit }) : this.pageAfter.all({ limit: options.limit, after: options.afterRunId });
    return rows.map(toTrackedRun);
  }

  async listActiveKeyOwners(): Promise<string[]> {
    return this.keyOwners.all();
  }

  async listTrackedByKeyOwner(personId: string, limit: number): Promise<TrackedRun[]> {
    return this.byKeyOwner.all({ owner: personId, limit }).map(toTrackedRun);
  }

  async listTrackedByAnchorPrefix(prefix: string, limit: number): Promise<TrackedRun[]> {
    const pattern = `${prefix.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
    return this.byAnchorPrefix.all({ pattern, limit }).map(toTrackedRun);
  }

  async findBySessionLink(link: string): Promise<TrackedRun | undefined> {
    const row = this.bySessionLink.get(link);
    return row ? toTrackedRun(row) : undefined;
  }

  async listTrackedNotInStates(states: readonly string[], limit: number): Promise<TrackedRun[]> {
    return this.notInStates.all({ states: JSON.stringify(states), limit }).map(toTrackedRun);
  }

  async listStale(seenBefore: number, limit: number): Promise<TrackedRun[]> {
    return this.stale.all({ seenBefore, limit }).map(toTrackedRun);
  }

  async recordTransition(runId: string, expectedTransition: number, observation: RunObservation, owed: NewOutboxRow[], now: number): Promise<boolean> {
    return inWriteTransaction(this.db, () => {
      const { changes } = this.transitionRow.run({
        runId,
        expected: expectedTransition,
        state: observation.state,
        serverUpdatedAt: observation.serverUpdatedAt,
        sessionLink: observation.sessionLink,
        tracked: toFlag(observation.tracked),
        ...usageParams(observation.usage),
        now,
      });
      if (changes === 0) return false;
      this.observedState.run({ runId, transition: expectedTransition + 1, state: observation.state, serverUpdatedAt: observation.serverUpdatedAt, now });
      this.outbox.addWithin(owed, now);
      return true;
    });
  }

  async touch(runIds: readonly string[], now: number): Promise<void> {
    if (runIds.length === 0) return;
    inWriteTransaction(this.db, () => this.touchRows.run({ ids: JSON.stringify(runIds), now }));
  }

  async recordUsage(runs: readonly MeteredRun[], now: number): Promise<void> {
    if (runs.length === 0) return;
    const reports = runs.map((run) => ({ runId: run.runId, ...usageParams(run.usage) }));
    inWriteTransaction(this.db, () => this.meterRows.run({ runs: JSON.stringify(reports), now }));
  }

  async retrack(runId: string, now: number): Promise<void> {
    inWriteTransaction(this.db, () => this.retrackWithin(runId, now));
  }

  async insert(run: NewTrackedRun, now: number): Promise<boolean> {
    return inWriteTransaction(this.db, () => this.insertWithin(run, now));
  }

  async recordWorkflowMove(runId: string, move: string, now: number): Promise<boolean> {
    return inWriteTransaction(this.db, () => this.addMove.run({ runId, move, now }).changes > 0);
  }

  async addDestination(runId: string, destination: string, now: number): Promise<boolean> {
    return inWriteTransaction(this.db, () => this.addPlace.run({ runId, destination, now }).changes > 0);
  }
}
