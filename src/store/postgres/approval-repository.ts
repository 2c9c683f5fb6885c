import type pg from 'pg';
import type { ApprovalRecord, ApprovalRepository, NewApproval } from '../../core/ports/store.js';
import { APPROVAL_SQL, holdParams, toApproval, type ApprovalRow } from '../approval-repository.js';
import { changes, row, rows, run } from './pg-sql.js';

export class PostgresApprovalRepository implements ApprovalRepository {
  constructor(private readonly pool: pg.Pool) {}

  async hold(approval: NewApproval): Promise<boolean> {
    return (await changes(this.pool, APPROVAL_SQL.hold, holdParams(approval))) > 0;
  }

  async get(id: string): Promise<ApprovalRecord | undefined> {
    const found = await row<ApprovalRow>(this.pool, APPROVAL_SQL.get, { id });
    return found ? toApproval(found) : undefined;
  }

  async decide(id: string, to: 'approved' | 'rejected', by: string, now: number): Promise<ApprovalRecord | undefined> {
    const found = await row<ApprovalRow>(this.pool, APPROVAL_SQL.decide, { id, to, by, now });
    return found ? toApproval(found) : undefined;
  }

  async expireDue(now: number, limit: number): Promise<ApprovalRecord[]> {
    return (await rows<ApprovalRow>(this.pool, APPROVAL_SQL.expireDue, { now, limit })).map(toApproval);
  }

  async approvedNotStarted(before: number, limit: number): Promise<ApprovalRecord[]> {
    return (await rows<ApprovalRow>(this.pool, APPROVAL_SQL.approvedNotStarted, { before, limit })).map(toApproval);
  }

  async markStarted(id: string, now: number): Promise<void> {
    await run(this.pool, APPROVAL_SQL.markStarted, { id, now });
  }
}
