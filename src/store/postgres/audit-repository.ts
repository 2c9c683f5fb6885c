import type pg from 'pg';
import type { AuditEntry } from '../../core/ports/audit.js';
import type { AuditCursor, AuditFilter, AuditRepository, StoredAuditEntry } from '../../core/ports/store.js';
import { AUDIT_SQL, auditListSql, auditParams, toAuditEntry, type AuditRow } from '../audit-repository.js';
import { changes, rows, run } from './pg-sql.js';

export class PostgresAuditRepository implements AuditRepository {
  constructor(private readonly pool: pg.Pool) {}

  async record(entry: AuditEntry): Promise<void> {
    await run(this.pool, AUDIT_SQL.record, auditParams(entry));
  }

  async list(query: AuditFilter & { limit: number; after?: AuditCursor }): Promise<StoredAuditEntry[]> {
    const { sql, params } = auditListSql(query);
    return (await rows<AuditRow>(this.pool, sql, params)).map(toAuditEntry);
  }

  async prune(before: number): Promise<number> {
    return changes(this.pool, AUDIT_SQL.prune, { before });
  }
}
