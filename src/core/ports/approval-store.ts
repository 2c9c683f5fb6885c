/**
 * Requests held for approval, as the store keeps them (part of the `Store` port as
 * `store.approvals`; see `store.ts` for its rules). A held request leaves `held` once: approved or
 * rejected by one approver's click (a compare-and-set only one click wins, across replicas), or
 * expired by the sweep.
 */
import type { NewTrigger } from './store-records.js';

export type ApprovalState = 'held' | 'approved' | 'rejected' | 'expired';

/** A held request: what to start when approved, who may decide, and until when. */
export interface NewApproval {
  /** The held trigger's key: one hold per request. */
  id: string;
  /** The request as it came, to start as if just asked once approved. */
  trigger: NewTrigger;
  /** Person ids who may approve or reject. */
  approvers: string[];
  /** The route's name, for messages and the audit trail. */
  route: string;
  heldAt: number;
  expiresAt: number;
}

export interface ApprovalRecord extends NewApproval {
  state: ApprovalState;
  /** Who approved or rejected it (a person id); null while held or once expired. */
  decidedBy: string | null;
  decidedAt: number | null;
  /** When the approved request's start was handed to the intake (null until then). */
  startedAt: number | null;
}

export interface ApprovalRepository {
  /** Stores the hold; a second hold of the same request changes nothing. True when stored now. */
  hold(approval: NewApproval): Promise<boolean>;
  get(id: string): Promise<ApprovalRecord | undefined>;
  /**
   * `held` → `to` by `by`, in one statement: only while held and not yet expired at `now`. The
   * record when this call made the change; undefined when another decision (or the expiry) came first.
   */
  decide(id: string, to: 'approved' | 'rejected', by: string, now: number): Promise<ApprovalRecord | undefined>;
  /** Up to `limit` held requests whose time ran out by `now`, moved to `expired` (each by one caller only). */
  expireDue(now: number, limit: number): Promise<ApprovalRecord[]>;
  /** Approved requests not yet handed to the intake, decided before `before` (a process stopped between the two). */
  approvedNotStarted(before: number, limit: number): Promise<ApprovalRecord[]>;
  /** Records that the approved request's start was handed to the intake. */
  markStarted(id: string, now: number): Promise<void>;
}
