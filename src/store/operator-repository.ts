import type Database from 'better-sqlite3';
import type { ObservedState, OperatorRepository, OutboxRow, RunCursor, RunFilter, RunListItem, StoredTrigger } from '../core/ports/store.js';
import { toOutboxRow } from './outbox-repository.js';
import { toTrackedRun } from './tracked-run-repository.js';
import { toTrigger } from './trigger-repository.js';

type RunRow = Parameters<typeof toTrackedRun>[0] & { requester_id: string | null; requester_name: string | null };
type StateRow = { transition: number; state: string; server_updated_at: string | null; observed_at: number };

/** `%text%` for LIKE … ESCAPE '\', with the pattern characters of `text` taken literally. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

/** A run row as both stores return it, with who asked. */
export function toRunListItem(row: RunRow): RunListItem {
  return { ...toTrackedRun(row), requester: { id: row.requester_id, name: row.requester_name } };
}

export function toObservedState(row: StateRow): ObservedState {
  return { transition: row.transition, state: row.state, serverUpdatedAt: row.server_updated_at, observedAt: row.observed_at };
}

/** The WHERE clauses of the runs page and their parameters; `person` and `route` are dialect-specific. */
export function runFilterSql(
  query: RunFilter & { after?: RunCursor },
  dialect: { requesterId: string; requesterPlatform: string; requesterName: string; routeName: string; like: string; jsonTexts: (param: string) => string },
): { where: string; params: Record<string, unknown> } {
  const clauses: string[] = [];
  const params: Record<string, unknown> = {};
  if (query.source) {
    clauses.push('r.source = @source');
    params['source'] = query.source;
  }
  if (query.state) {
    clauses.push('r.state = @state');
    params['state'] = query.state;
  }
  if (query.routeName) {
    clauses.push(`${dialect.routeName} = @routeName`);
    params['routeName'] = query.routeName;
  }
  if (query.person) {
    // The resolved ids travel as one JSON array parameter: one statement shape however many there are.
    const ids = query.personIds && query.personIds.length > 0 ? ` OR ${dialect.requesterId} IN (${dialect.jsonTexts('@personIds')})` : '';
    clauses.push(`(${dialect.requesterId} = @person${ids} OR ${dialect.requesterName} ${dialect.like} @personPattern ESCAPE '\\')`);
    params['person'] = query.person;
    params['personPattern'] = containsPattern(query.person);
    if (ids) params['personIds'] = JSON.stringify(query.personIds);
  }
  if (query.ownedBy) {
    const as = query.ownedAs ? ` OR (${dialect.requesterPlatform} = @ownedOn AND ${dialect.requesterId} = @ownedAs)` : '';
    clauses.push(`(${dialect.requesterId} = @ownedBy${as} OR r.key_owner = @ownedBy)`);
    params['ownedBy'] = query.ownedBy;
    if (query.ownedAs) {
      params['ownedOn'] = query.ownedAs.platform;
      params['ownedAs'] = query.ownedAs.id;
    }
  }
  if (query.text) {
    clauses.push(`r.title ${dialect.like} @textPattern ESCAPE '\\'`);
    params['textPattern'] = containsPattern(query.text);
  }
  if (query.after) {
    clauses.push('(r.created_at < @afterCreated OR (r.created_at = @afterCreated AND r.run_id < @afterRun))');
    params['afterCreated'] = query.after.createdAt;
    params['afterRun'] = query.after.runId;
  }
  return { where: clauses.length > 0 ? `WHERE ${clauses.join(' AND ')}` : '', params };
}

const SQLITE_DIALECT = {
  requesterId: "json_extract(t.payload, '$.requester.id')",
  requesterPlatform: "json_extract(t.payload, '$.requester.platform')",
  requesterName: "json_extract(t.payload, '$.requester.name')",
  routeName: "json_extract(r.route, '$.config.name')",
  like: 'LIKE',
  jsonTexts: (param: string) => `SELECT value FROM json_each(${param})`,
};

export class SqliteOperatorRepository implements OperatorRepository {
  private readonly statesOf;
  private readonly triggersOf;
  private readonly failedOutbox;
  private readonly failedTriggerRows;
  private readonly retryOutbox;
  private readonly dismissOutbox;
  private readonly retryTriggerRow;
  private readonly dismissTriggerRow;
  private readonly listCache = new Map<string, Database.Statement<Record<string, unknown>, RunRow>>();

  constructor(private readonly db: Database.Database) {
    this.statesOf = db.prepare<[string], StateRow>('SELECT * FROM run_states WHERE run_id = ? ORDER BY transition');
    this.triggersOf = db.prepare<{ runId: string; key: string | null }, Parameters<typeof toTrigger>[0]>(
      'SELECT * FROM triggers WHERE run_id = @runId OR key = @key ORDER BY id',
    );
    this.failedOutbox = db.prepare<[number], Parameters<typeof toOutboxRow>[0]>(
      "SELECT * FROM outbox WHERE state = 'failed' AND dismissed_at IS NULL ORDER BY id DESC LIMIT ?",
    );
    this.failedTriggerRows = db.prepare<[number], Parameters<typeof toTrigger>[0]>(
      "SELECT * FROM triggers WHERE state = 'failed' AND dismissed_at IS NULL ORDER BY id DESC LIMIT ?",
    );
    this.retryOutbox = db.prepare<{ id: number; now: number }>(
      `UPDATE outbox SET state = 'pending', next_attempt_at = @now, dismissed_at = NULL,
              lease_owner = NULL, lease_process = NULL, lease_until = NULL
       WHERE id = @id AND state = 'failed'`,
    );
    this.dismissOutbox = db.prepare<{ id: number; now: number }>(
      "UPDATE outbox SET dismissed_at = @now WHERE id = @id AND state = 'failed' AND dismissed_at IS NULL",
    );
    this.retryTriggerRow = db.prepare<{ id: number; now: number }>(
      `UPDATE triggers SET state = 'pending', next_attempt_at = @now, dismissed_at = NULL, updated_at = @now,
              lease_owner = NULL, lease_process = NULL, lease_until = NULL
       WHERE id = @id AND state = 'failed'`,
    );
    this.dismissTriggerRow = db.prepare<{ id: number; now: number }>(
      "UPDATE triggers SET dismissed_at = @now WHERE id = @id AND state = 'failed' AND dismissed_at IS NULL",
    );
  }

  async listRuns(query: RunFilter & { limit: number; after?: RunCursor }): Promise<RunListItem[]> {
    const { where, params } = runFilterSql(query, SQLITE_DIALECT);
    // One prepared statement per combination of filters (at most 128), not per request.
    let statement = this.listCache.get(where);
    if (!statement) {
      statement = this.db.prepare<Record<string, unknown>, RunRow>(
        `SELECT r.*, ${SQLITE_DIALECT.requesterId} AS requester_id, ${SQLITE_DIALECT.requesterName} AS requester_name
         FROM tracked_runs AS r LEFT JOIN triggers AS t ON t.key = r.trigger_key
         ${where} ORDER BY r.created_at DESC, r.run_id DESC LIMIT @limit`,
      );
      this.listCache.set(where, statement);
    }
    return statement.all({ ...params, limit: query.limit }).map(toRunListItem);
  }

  async states(runId: string): Promise<ObservedState[]> {
    return this.statesOf.all(runId).map(toObservedState);
  }

  async triggersOfRun(runId: string, triggerKey: string | null): Promise<StoredTrigger[]> {
    return this.triggersOf.all({ runId, key: triggerKey }).map(toTrigger);
  }

  async failedDeliveries(limit: number): Promise<OutboxRow[]> {
    return this.failedOutbox.all(limit).map(toOutboxRow);
  }

  async failedTriggers(limit: number): Promise<StoredTrigger[]> {
    return this.failedTriggerRows.all(limit).map(toTrigger);
  }

  async retryDelivery(id: number, now: number): Promise<boolean> {
    return this.retryOutbox.run({ id, now }).changes > 0;
  }

  async dismissDelivery(id: number, now: number): Promise<boolean> {
    return this.dismissOutbox.run({ id, now }).changes > 0;
  }

  async retryTrigger(id: number, now: number): Promise<boolean> {
    return this.retryTriggerRow.run({ id, now }).changes > 0;
  }

  async dismissTrigger(id: number, now: number): Promise<boolean> {
    return this.dismissTriggerRow.run({ id, now }).changes > 0;
  }
}
