/**
 * The audit trail: one append-only entry per act that changes something — who,
 * when, what, which run, and why a route or key was chosen. Never a secret, a prompt or message text.
 */

/** What was done. Stable names: the CLI's `--json`, the console's filter and stored rows use them. */
export type AuditAct =
  | 'run.started'
  | 'run.followed_up'
  | 'run.cancelled'
  | 'request.held'
  | 'request.approved'
  | 'request.rejected'
  | 'request.expired'
  | 'request.refused_limit'
  | 'key.connected'
  | 'key.removed'
  | 'console.retry'
  | 'console.dismiss'
  | 'console.pause'
  | 'console.resume';

/** One entry. `detail` holds short facts (route name, `key: service | personal`, which limit), never text people wrote. */
export interface AuditEntry {
  /** When, by our clock (ms since the epoch). */
  readonly at: number;
  readonly act: AuditAct;
  /** Who did it: a person id when known (the chat user who owns personal keys, or a surface's id of a user not linked). */
  readonly personId?: string;
  /** Where it came from: a surface's name, or `console`, `cli`, `schedule`. */
  readonly surface: string;
  readonly runId?: string;
  readonly detail?: Readonly<Record<string, string | number>>;
  /** Makes the act recorded once: a retried act with the same key adds nothing. */
  readonly onceKey: string;
}

/** Appends entries to the audit trail; idempotent by `onceKey`. */
export interface AuditTrail {
  record(entry: AuditEntry): Promise<void>;
}
