import type { OutboxRow, StoredTrigger, TrackedRun } from './store.js';

/**
 * What the web console reads from the store and the few repairs an operator makes there (part of the
 * `Store` port as `store.operator`; both adapters implement it and pass the contract suite).
 */

/** Filters of the runs page; every one optional, all of them must hold. */
export interface RunFilter {
  /** The run's source (`slack`, `linear`, `schedule`, `cli`). */
  source?: string;
  /** The last observed state, exactly (e.g. `INPROGRESS`). */
  state?: string;
  /** The `config.name` of the route the run was created with. */
  routeName?: string;
  /** Who asked: their id exactly, or part of their display name (case-insensitive). */
  person?: string;
  /** Part of the title (case-insensitive for ASCII). */
  text?: string;
}

/** Where a page of runs starts: after this run in newest-first order. */
export interface RunCursor {
  createdAt: number;
  runId: string;
}

/** A run as the runs page lists it, with who asked (from the trigger that started it). */
export interface RunListItem extends TrackedRun {
  requester: { id: string | null; name: string | null };
}

/** One observed state of a run; transition 0 is the state it was stored with. */
export interface ObservedState {
  transition: number;
  state: string;
  /** The run API's `updated_at` at the time (RFC 3339), when it said. */
  serverUpdatedAt: string | null;
  /** When we observed it (epoch ms). */
  observedAt: number;
}

export interface OperatorRepository {
  /** Runs newest first (created, then run id, descending), `limit` of them after `after`, filtered. */
  listRuns(query: RunFilter & { limit: number; after?: RunCursor }): Promise<RunListItem[]>;
  /** Every observed state of the run, in transition order. */
  states(runId: string): Promise<ObservedState[]>;
  /** The triggers about this run (start, follow-ups, cancels) and the one with `triggerKey`, in id order. */
  triggersOfRun(runId: string, triggerKey: string | null): Promise<StoredTrigger[]>;
  /** Failed deliveries nobody dismissed, newest first. */
  failedDeliveries(limit: number): Promise<OutboxRow[]>;
  /** Failed triggers nobody dismissed, newest first. */
  failedTriggers(limit: number): Promise<StoredTrigger[]>;
  /** A failed delivery back to pending, due at once (attempts kept). False unless it was failed. */
  retryDelivery(id: number, now: number): Promise<boolean>;
  /** Hides a failed delivery from "needs attention". False unless it was failed and shown. */
  dismissDelivery(id: number, now: number): Promise<boolean>;
  /**
   * A failed trigger back to pending, due at once (one more attempt once its retry window is over; a
   * create that may have happened is still looked for first). False unless it was failed.
   */
  retryTrigger(id: number, now: number): Promise<boolean>;
  /** Hides a failed trigger from "needs attention". False unless it was failed and shown. */
  dismissTrigger(id: number, now: number): Promise<boolean>;
}
