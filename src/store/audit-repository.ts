import type Database from 'better-sqlite3';
import type { AuditAct, AuditEntry } from '../core/ports/audit.js';
import type { AuditCursor, AuditFilter, AuditRepository, StoredAuditEntry } from '../core/ports/store.js';

export interface AuditRow {
  id: number;
  at: number;
  act: string;
  person_id: string | null;
  surface: string;
  run_id: string | null;
  detail: string | null;
  once_key: string;
}

/** A stored row as the port's entry. */
export function toAuditEntry(row: AuditRow): StoredAuditEntry {
  return {
    id: Number(row.id),
    at: Number(row.at),
    act: row.act as AuditAct,
    surface: row.surface,
    onceKey: row.once_key,
    ...(row.person_id !== null && { personId: row.person_id }),
    ...(row.run_id !== null && { runId: row.run_id }),
    ...(row.detail !== null && { detail: JSON.parse(row.detail) as Record<string, string | number> }),
  };
}

/** An entry as the insert's parameters. */
export function auditParams(entry: AuditEntry): Record<string, unknown> {
  return {
    at: entry.at,
    act: entry.act,
    personId: entry.personId ?? null,
    surface: entry.surface,
    runId: entry.runId ?? null,
    detail: entry.detail === undefined ? null : JSON.stringify(entry.detail),
    onceKey: entry.onceKey,
  };
}

/** The statements both engines run (named parameters are `@name` in both adapters). */
export const AUDIT_SQL = {
  // Append-only: a retried act with the same key adds nothing, and nothing ever updates a row.
  record: `INSERT INTO audit_entries (at, act, person_id, surface, run_id, detail, once_key)
    VALUES (@at, @act, @personId, @surface, @runId, @detail, @onceKey) ON CONFLICT (once_key) DO NOTHING`,
  prune: 'DELETE FROM audit_entries WHERE at < @before',
} as const;

/**
 * The listing's statement for the filters set (one text per combination, so each adapter can cache
 * it) and its parameters.
 */
export function auditListSql(query: AuditFilter & { limit: number; after?: AuditCursor }): { sql: string; params: Record<string, unknown> } {
  const where: string[] = [];
  const params: Record<string, unknown> = { limit: query.limit };
  if (query.since !== undefined) {
    where.push('at >= @since');
    params.since = query.since;
  }
  if (query.personId !== undefined) {
    where.push('person_id = @personId');
    params.personId = query.personId;
  }
  if (query.act !== undefined) {
    where.push('act = @act');
    params.act = query.act;
  }
  if (query.after !== undefined) {
    where.push('(at < @afterAt OR (at = @afterAt AND id < @afterId))');
    params.afterAt = query.after.at;
    params.afterId = query.after.id;
  }
  const filter = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
  return { sql: `SELECT * FROM audit_entries ${filter} ORDER BY at DESC, id DESC LIMIT @limit`, params };
}

export class SqliteAuditRepository implements AuditRepository {
  private readonly recordRow;
  private readonly pruneRows;
  private readonly listCache = new Map<string, Database.Statement<Record<string, unknown>, AuditRow>>();

  constructor(private readonly db: Database.Database) {
    this.recordRow = db.prepare<Record<string, unknown>>(AUDIT_SQL.record);
    this.pruneRows = db.prepare<{ before: number }>(AUDIT_SQL.prune);
  }

  async record(entry: AuditEntry): Promise<void> {
    this.recordWithin(entry);
  }

  /** `record` inside a caller's transaction (a trigger's finish). */
  recordWithin(entry: AuditEntry): void {
    this.recordRow.run(auditParams(entry));
  }

  async list(query: AuditFilter & { limit: number; after?: AuditCursor }): Promise<StoredAuditEntry[]> {
    const { sql, params } = auditListSql(query);
    let statement = this.listCache.get(sql);
    if (!statement) {
      statement = this.db.prepare<Record<string, unknown>, AuditRow>(sql);
      this.listCache.set(sql, statement);
    }
    return statement.all(params).map(toAuditEntry);
  }

  async prune(before: number): Promise<number> {
    return this.pruneRows.run({ before }).changes;
  }
}
