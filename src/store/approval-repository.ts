import type Database from 'better-sqlite3';
import type { ApprovalRecord, ApprovalRepository, ApprovalState, NewApproval, NewTrigger } from '../core/ports/store.js';

export interface ApprovalRow {
  id: string;
  state: ApprovalState;
  trigger: string;
  approvers: string;
  route: string;
  held_at: number;
  expires_at: number;
  decided_by: string | null;
  decided_at: number | null;
  started_at: number | null;
}

/** A stored row as the port's record. */
export function toApproval(row: ApprovalRow): ApprovalRecord {
  const at = (value: number | null) => (value === null ? null : Number(value));
  return {
    id: row.id,
    state: row.state,
    trigger: JSON.parse(row.trigger) as NewTrigger,
    approvers: JSON.parse(row.approvers) as string[],
    route: row.route,
    heldAt: Number(row.held_at),
    expiresAt: Number(row.expires_at),
    decidedBy: row.decided_by,
    decidedAt: at(row.decided_at),
    startedAt: at(row.started_at),
  };
}

/** A hold as the insert's parameters. */
export function holdParams(approval: NewApproval): Record<string, unknown> {
  return {
    id: approval.id,
    trigger: JSON.stringify(approval.trigger),
    approvers: JSON.stringify(approval.approvers),
    route: approval.route,
    heldAt: approval.heldAt,
    expiresAt: approval.expiresAt,
  };
}

/** The statements both engines run (named parameters are `@name` in both adapters). */
export const APPROVAL_SQL = {
  hold: `INSERT INTO approvals (id, state, trigger, approvers, route, held_at, expires_at)
    VALUES (@id, 'held', @trigger, @approvers, @route, @heldAt, @expiresAt) ON CONFLICT (id) DO NOTHING`,
  get: 'SELECT * FROM approvals WHERE id = @id',
  // The compare-and-set only one decision wins: a second click, or another approver's, finds it decided.
  decide: `UPDATE approvals SET state = @to, decided_by = @by, decided_at = @now
    WHERE id = @id AND state = 'held' AND expires_at > @now RETURNING *`,
  // The state is checked again in the UPDATE itself: two sweeps never expire (and announce) one request twice.
  expireDue: `UPDATE approvals SET state = 'expired', decided_at = @now
    WHERE state = 'held' AND id IN (SELECT id FROM approvals WHERE state = 'held' AND expires_at <= @now ORDER BY expires_at LIMIT @limit)
    RETURNING *`,
  approvedNotStarted: `SELECT * FROM approvals WHERE state = 'approved' AND started_at IS NULL AND decided_at < @before
    ORDER BY decided_at LIMIT @limit`,
  markStarted: 'UPDATE approvals SET started_at = @now WHERE id = @id AND started_at IS NULL',
} as const;

export class SqliteApprovalRepository implements ApprovalRepository {
  private readonly holdRow;
  private readonly getRow;
  private readonly decideRow;
  private readonly expireRows;
  private readonly unstartedRows;
  private readonly markStartedRow;

  constructor(db: Database.Database) {
    this.holdRow = db.prepare<Record<string, unknown>>(APPROVAL_SQL.hold);
    this.getRow = db.prepare<{ id: string }, ApprovalRow>(APPROVAL_SQL.get);
    this.decideRow = db.prepare<{ id: string; to: string; by: string; now: number }, ApprovalRow>(APPROVAL_SQL.decide);
    this.expireRows = db.prepare<{ now: number; limit: number }, ApprovalRow>(APPROVAL_SQL.expireDue);
    this.unstartedRows = db.prepare<{ before: number; limit: number }, ApprovalRow>(APPROVAL_SQL.approvedNotStarted);
    this.markStartedRow = db.prepare<{ id: string; now: number }>(APPROVAL_SQL.markStarted);
  }

  async hold(approval: NewApproval): Promise<boolean> {
    return this.holdRow.run(holdParams(approval)).changes > 0;
  }

  async get(id: string): Promise<ApprovalRecord | undefined> {
    const row = this.getRow.get({ id });
    return row ? toApproval(row) : undefined;
  }

  async decide(id: string, to: 'approved' | 'rejected', by: string, now: number): Promise<ApprovalRecord | undefined> {
    const row = this.decideRow.get({ id, to, by, now });
    return row ? toApproval(row) : undefined;
  }

  async expireDue(now: number, limit: number): Promise<ApprovalRecord[]> {
    return this.expireRows.all({ now, limit }).map(toApproval);
  }

  async approvedNotStarted(before: number, limit: number): Promise<ApprovalRecord[]> {
    return this.unstartedRows.all({ before, limit }).map(toApproval);
  }

  async markStarted(id: string, now: number): Promise<void> {
    this.markStartedRow.run({ id, now });
  }
}
