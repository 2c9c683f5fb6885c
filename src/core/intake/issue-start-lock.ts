import type { Store } from '../ports/store.js';

/*
 * One start at a time per issue, so a second binding of the same issue joins the run the first started.
 * Two requests about one issue — two chat mentions naming it, or a mention and the issue's
 * trigger label — may be worked at the same moment by two intake workers, of one process or of two.
 * Each would find no active run on the issue and start one: two runs for one issue. So the start
 * that found no run takes the issue's named lease before it creates anything; the other is retried
 * shortly and then finds the first one's run (a mention joins it; a label is told it is active).
 * The lease is given up once the trigger is finished (its run stored and linked). Its holder is the
 * trigger, not a process: a trigger retried after a crash or a timeout — by any process — still holds
 * it while it looks for the run its first attempt may have created; a trigger given up on holds it
 * until it runs out.
 */

/** The named lease of starts on an issue (or any anchor whose starts must not overlap). */
export function issueStartLease(anchor: string): string {
  return `issue-start:${anchor}`;
}

/** The lease's holder: the trigger itself (no process: whichever process works it next holds it). */
function holder(triggerKey: string): string {
  return `start:${triggerKey}`;
}

/** Another request is starting a run on the same issue right now: retry shortly. */
export class IssueStartBusyError extends Error {
  override readonly name = 'IssueStartBusyError';
  /** How soon to look again: the other start is usually stored within a run-API call. */
  readonly retryInMs = 1_000;
  constructor(readonly anchor: string) {
    super(`another request is starting a run on ${anchor}`);
  }
}

/** Who takes a start lease (the trigger) and when, by the worker's clock. */
export interface StartClaim {
  triggerKey: string;
  now: number;
  /** The trigger's own lease: the start lease lasts twice as long, so a create that times out is looked for before another start may begin. */
  leaseMs: number;
}

/** Takes the anchor's start lease for the trigger, or throws `IssueStartBusyError` when another start holds it. */
export async function takeIssueStart(store: Store, anchor: string, claim: StartClaim): Promise<void> {
  if (!(await store.leases.acquire(issueStartLease(anchor), holder(claim.triggerKey), claim.now, 2 * claim.leaseMs))) {
    throw new IssueStartBusyError(anchor);
  }
}

/** Gives the anchor's start lease up, if the trigger holds it (its run is stored and linked by now). */
export async function releaseIssueStart(store: Store, anchor: string, triggerKey: string): Promise<void> {
  await store.leases.release(issueStartLease(anchor), holder(triggerKey));
}
