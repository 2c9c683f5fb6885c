/**
 * The `Store` port: everything the core keeps durably — the trigger inbox, tracked runs, the links
 * between threads/issues and runs, processed event keys, the outbox, schedule fires, named leases and
 * a few settings. `store/` implements it on SQLite and `store/postgres/` on PostgreSQL (several
 * replicas share one database); both pass one contract suite (`test/store/adapters.ts`). So:
 *
 * - Every method returns a promise, although the SQLite adapter works synchronously.
 * - Every dedupe, claim and lease is ONE SQL statement both engines run; every multi-row change is
 *   one transaction, exposed as one method per use case (there are no open-ended transactions).
 * - The store never reads a clock: each method that needs the time takes `now` (epoch ms).
 * - Several processes may share one database: work that must happen once is claimed here.
 *
 * Leases. A claim sets `leaseOwner` and `leaseUntil`; once `leaseUntil <= now` another owner may
 * claim the row again. A guarded write (`finish`, `markSent`, `extendLease`, …) succeeds only while
 * `owner` still holds the claim, that is while nobody else has re-claimed it: an expired lease that
 * nobody took over is still held. So an owner must be unique per worker (e.g. host, pid and a random
 * part), never shared by two workers that might hold the same row.
 *
 * Liveness. An owner is `<process id>` or `<process id>/<worker>` (see `workerOwner`); a claim also
 * records that process. A process registered in `processes` keeps itself alive with a heartbeat
 * (`aliveUntil`); once it stopped cleanly or missed its beats, every claim and named lease it holds
 * is free at once, whatever `leaseUntil` says. A live holder still loses a claim when its lease runs
 * out (work that takes long renews it), so liveness only ever frees work sooner, never holds it
 * longer. Owners of unregistered processes (tests, the CLI) keep the plain lease.
 */

import type {
  AnchorRepository,
  EventKeyRepository,
  LeaseRepository,
  OutboxRepository,
  ProcessRepository,
  ScheduleFireRepository,
  SettingRepository,
  TrackedRunRepository,
  TriggerRepository,
} from './store-repositories.js';
import type { ConsoleSessionRepository, OperatorRepository, PersonKeyRepository, PersonLinkRepository } from './operator-store.js';
import type { UsageRepository } from './usage-store.js';
import type { AuditRepository } from './audit-store.js';
import type { ApprovalRepository } from './approval-store.js';

export * from './store-records.js';
export * from './store-repositories.js';
export * from './operator-store.js';
export * from './usage-store.js';
export * from './audit-store.js';
export * from './approval-store.js';

/** What another process stored: new triggers to work on, or new outbox rows to deliver. */
export type StoreChange = 'triggers' | 'outbox';

/**
 * Who stored a change: this store (`self`); another store that listens for changes too (`replica`:
 * its process was told of its own change, so it works it); or a store that does not listen, such as
 * the command line's, or nobody knows (`unknown`: e.g. a look after the listening connection was lost).
 */
export type ChangeOrigin = 'self' | 'replica' | 'unknown';

export interface Store {
  triggers: TriggerRepository;
  trackedRuns: TrackedRunRepository;
  anchors: AnchorRepository;
  eventKeys: EventKeyRepository;
  outbox: OutboxRepository;
  scheduleFires: ScheduleFireRepository;
  leases: LeaseRepository;
  processes: ProcessRepository;
  settings: SettingRepository;
  /** What the web console reads, and the operator's repairs (retry, dismiss). */
  operator: OperatorRepository;
  /** People's personal API keys, sealed. */
  personKeys: PersonKeyRepository;
  /** Users of a surface without people of its own known to be people. */
  personLinks: PersonLinkRepository;
  /** The web console's signing key and its signed-out sessions. */
  consoleSessions: ConsoleSessionRepository;
  /** Usage summed for people and operators, and the limits' reservations. */
  usage: UsageRepository;
  /** The audit trail: one append-only entry per act that changes something. */
  audit: AuditRepository;
  /** Requests held until an approver decides. */
  approvals: ApprovalRepository;
  /** Cheap query proving the database answers (readiness). */
  ping(): Promise<void>;
  /**
   * Optional: calls `listener` soon after any process sharing the database (this one included) commits
   * new triggers or outbox rows, so workers wake at once instead of at their next poll, and says who
   * stored them. While a store has a listener, what it stores reaches the others as `replica`'s:
   * subscribe only where this process's workers then work it. Stores whose processes cannot tell
   * each other (SQLite) leave it out; polling is the safety net either way. Returns the function that
   * unsubscribes.
   */
  onChange?(listener: (change: StoreChange, origin: ChangeOrigin) => void): () => void;
  /** Closes the database; calling it again does nothing. */
  close(): Promise<void>;
}
