/** The repositories of the `Store` port that the run lifecycle uses (see `store.ts` for the rules every one keeps). */
import type {
  Claimed,
  MeteredRun,
  NewOutboxRow,
  NewTrackedRun,
  NewTrigger,
  OutboxRow,
  OutboxState,
  RunObservation,
  ScheduleFire,
  StoredTrigger,
  TrackedRun,
  FreeWorker,
  TriggerEffects,
  TriggerOutcome,
  TriggerState,
} from './store-records.js';

/** What `TriggerRepository.enqueue` stores, and to whom it may hand it at once. */
export interface TriggerToStore {
  trigger: NewTrigger;
  /** The outbox rows owed for it (default none): added only when the trigger is new. */
  owed?: readonly NewOutboxRow[];
  now: number;
  /** Event keys (e.g. a webhook's delivery id) remembered in the same transaction, new trigger or not. */
  rememberKeys?: readonly string[];
  /** When a new trigger first becomes claimable (default `now`): follow-ups gathered for a window. */
  dueAt?: number;
  /** The span of the request that stores it (W3C `traceparent`), tracing on. */
  traceparent?: string;
  /**
   * Free workers of this process to hand over to. A store may store the new trigger claimed by
   * `handTo.trigger` (`handedOver`: state `working`, lease to its owner for its `leaseMs`, attempts
   * 1), and the first owed row it may deliver at once claimed by `handTo.outbox` (`handedOverRow`:
   * `sending`, the same lease terms), saving the claims that would follow. It does so only when it can tell within the
   * transaction that the order the claims keep holds: the trigger is due now and no earlier trigger
   * of its anchor is unfinished; the row's destination has no earlier unsent row. SQLite can (one
   * writer at a time); PostgreSQL never hands over, since two replicas' transactions cannot see each
   * other's uncommitted triggers and rows. What is not handed over is stored as always.
   */
  handTo?: { trigger?: FreeWorker; outbox?: FreeWorker };
}

/** What `TriggerRepository.enqueue` answers. */
export interface EnqueueResult {
  /** False for a key already stored: `trigger` is the earlier one, and nothing was added. */
  inserted: boolean;
  trigger: StoredTrigger;
  /** The new trigger was stored claimed by `handTo.trigger`: that worker works it without a claim. */
  handedOver?: boolean;
  /** The owed row stored claimed by `handTo.outbox`: that worker delivers it without a claim. */
  handedOverRow?: OutboxRow;
}

/** The inbox: triggers are stored once, then claimed and worked on by one worker at a time. */
export interface TriggerRepository {
  /**
   * Whether `enqueue` ever hands work over (`handTo`). A caller reserves no worker for a store that
   * never does: a reserved worker is left out of wake-ups until the store answers, for nothing.
   */
  readonly handsOver: boolean;
  /**
   * Stores a trigger once per key (INSERT … ON CONFLICT DO NOTHING) together with the outbox rows
   * owed for it, in one transaction; the rows are only added when the trigger is new. Returns the
   * stored trigger either way (the earlier one when the key was known). The rest is `TriggerToStore`'s.
   */
  enqueue(entry: TriggerToStore): Promise<EnqueueResult>;
  /**
   * Claims the oldest due trigger — pending, or working with an expired lease or a holder that is not
   * alive, and `nextAttemptAt <= now` — in ONE `UPDATE … RETURNING`: state `working`, lease to `owner` until
   * `now + leaseMs`, attempts + 1. Triggers of one anchor are worked on in order, one at a time: a
   * trigger is not claimable while an earlier trigger of its anchor is still pending or working.
   * Undefined when nothing is due. `moreDue`: the statement saw another trigger pending and due (one
   * of its anchor's included), so another worker may find one.
   */
  claimNext(owner: string, now: number, leaseMs: number): Promise<Claimed<StoredTrigger> | undefined>;
  /**
   * The follow-ups that go with `head` (which `owner` holds) as one (`followups: all`): in ONE
   * `UPDATE … RETURNING`, claims the later follow-up triggers of head's anchor that are pending (due
   * or not) or abandoned, up to the first unfinished trigger of another kind (a stop or a start keeps
   * its place), at most `limit`, under the same lease terms as `claimNext`. In id order.
   */
  claimFollowing(head: Pick<StoredTrigger, 'id' | 'anchor'>, owner: string, now: number, leaseMs: number, limit: number): Promise<StoredTrigger[]>;
  /** Gives back triggers `owner` holds (pending again, lease cleared, due as before), all or none; how many. */
  release(ids: readonly number[], owner: string, now: number): Promise<number>;
  /** Records that a run is about to be created (before the call). False if `owner` lost the lease. */
  markCreateAttempted(id: number, owner: string, now: number): Promise<boolean>;
  /** Extends `owner`'s lease to `now + leaseMs`. False if `owner` lost the lease. */
  extendLease(id: number, owner: string, now: number, leaseMs: number): Promise<boolean>;
  /** Puts the trigger back to pending (lease cleared) until `nextAttemptAt`, noting the error. False if `owner` lost the lease. */
  reschedule(id: number, owner: string, nextAttemptAt: number, error: string, now: number): Promise<boolean>;
  /**
   * Ends a trigger. In one transaction, only if `owner` still holds the lease: sets the state
   * (done | failed | ignored), run id and error, clears the lease; stores the tracked run, links the
   * anchor to the run (making it current), re-tracks a run, adds the outbox rows. Returns false (and
   * changes nothing) if the lease was lost.
   */
  finish(id: number, owner: string, outcome: TriggerOutcome, effects: TriggerEffects, now: number): Promise<boolean>;
  /** The trigger with this id. */
  get(id: number): Promise<StoredTrigger | undefined>;
  /** The trigger with this dedupe key. */
  getByKey(key: string): Promise<StoredTrigger | undefined>;
  /** Number of triggers in each state (every state present, 0 when none). */
  countByState(): Promise<Record<TriggerState, number>>;
}

/** Runs the tracker watches. */
export interface TrackedRunRepository {
  /** The run with this id, tracked or not. */
  get(runId: string): Promise<TrackedRun | undefined>;
  /** The runs with these ids that exist, tracked or not, in one statement (the tracker reads a listed page at once). */
  getMany(runIds: readonly string[]): Promise<TrackedRun[]>;
  /** Number of runs still tracked. */
  countTracked(): Promise<number>;
  /** Tracked runs page by page in run id order (for the tracker and benchmarks). */
  listTracked(options: { limit: number; afterRunId?: string }): Promise<TrackedRun[]>;
  /** Tracked runs whose state is not in `states` (e.g. unknown states the list cannot filter), oldest seen first (never seen before all). */
  listTrackedNotInStates(states: readonly string[], limit: number): Promise<TrackedRun[]>;
  /**
   * The distinct key owners (person ids) of runs still tracked, in id order, in one statement: the
   * tracker lists once per such key. Runs created with the service key are not counted here.
   */
  listActiveKeyOwners(): Promise<string[]>;
  /** Tracked runs created with `personId`'s key, oldest first, at most `limit` (they are told when the key is refused). */
  listTrackedByKeyOwner(personId: string, limit: number): Promise<TrackedRun[]>;
  /** Tracked runs whose anchor starts with `prefix` (e.g. one chat channel's threads), newest first. */
  listTrackedByAnchorPrefix(prefix: string, limit: number): Promise<TrackedRun[]>;
  /** The newest run, tracked or not, whose session link is exactly `link` (a pasted link's preview). */
  findBySessionLink(link: string): Promise<TrackedRun | undefined>;
  /** Tracked runs not seen since `seenBefore` (lastSeenAt null or older), oldest seen first (never seen before all). */
  listStale(seenBefore: number, limit: number): Promise<TrackedRun[]>;
  /**
   * Compare-and-set on the transition number: if the run is still at `expectedTransition`, writes the
   * observation (and lastSeenAt = now), increments the transition and adds the outbox rows, in one
   * transaction. False (nothing changed) if another process got there first or the run is unknown.
   */
  recordTransition(runId: string, expectedTransition: number, observation: RunObservation, owed: NewOutboxRow[], now: number): Promise<boolean>;
  /** Marks runs as seen without a state change (one statement). Unknown ids are ignored. */
  touch(runIds: readonly string[], now: number): Promise<void>;
  /**
   * Marks runs as seen whose reported usage changed and nothing else (one statement): keeps each one's
   * latest figures; a figure absent from a report keeps the stored one. Unknown ids are ignored.
   */
  recordUsage(runs: readonly MeteredRun[], now: number): Promise<void>;
  /** Tracks a run again (a follow-up revives an ended run). Unknown ids are ignored. */
  retrack(runId: string, now: number): Promise<void>;
  /** Stores a tracked run (transition 0) if absent (ON CONFLICT DO NOTHING) — for adopting runs. True if it was inserted. */
  insert(run: NewTrackedRun, now: number): Promise<boolean>;
  /**
   * Adds `move` to the run's `workflowMoves` unless it is there already, in one statement. True if it
   * was added; false if it was there or the run is unknown.
   */
  recordWorkflowMove(runId: string, move: string, now: number): Promise<boolean>;
  /**
   * Adds `destination` to the run's destinations unless it is there already, in one statement (a
   * chat thread that joined an issue's run becomes one of its places). True if it was added; false
   * if it was there or the run is unknown.
   */
  addDestination(runId: string, destination: string, now: number): Promise<boolean>;
}

/** Which run belongs to which thread / issue (the anchor). */
export interface AnchorRepository {
  /** Adds the run to the anchor's history and makes it the anchor's current run (one transaction). */
  link(anchor: string, runId: string, now: number): Promise<void>;
  /** The anchor's current run. */
  currentRun(anchor: string): Promise<string | undefined>;
  /**
   * The anchor's current run, else the current run of the anchor that the setting `aliasSetting`
   * names (when it is set): `currentRun`, `settings.get` and `currentRun` again, in one statement.
   */
  currentRunVia(anchor: string, aliasSetting: string): Promise<string | undefined>;
  /** Every run ever linked to the anchor, first linked first. */
  history(anchor: string): Promise<Array<{ runId: string; linkedAt: number }>>;
  /** The anchor the run was first linked to. */
  anchorOf(runId: string): Promise<string | undefined>;
}

/** Keys of processed events (webhook deliveries, comment ids we created, …). */
export interface EventKeyRepository {
  /** Remembers the key; true if it is new (INSERT … ON CONFLICT DO NOTHING). */
  remember(key: string, now: number): Promise<boolean>;
  /** Whether the key was remembered (and not pruned yet). */
  has(key: string): Promise<boolean>;
  /**
   * A watermark kept as a key (e.g. the time of an issue's last label change): raised to `at` unless it
   * is later already. True when `at` is at or after the watermark (now raised to it), false when it is
   * older — an event from before the last one seen. One statement, so processes sharing the store agree;
   * pruned with the keys once `at` is older than `olderThan`.
   */
  advance(key: string, at: number): Promise<boolean>;
  /** Deletes keys remembered before `olderThan`; returns how many. */
  prune(olderThan: number): Promise<number>;
}

/** Everything owed to a person, delivered at least once and in order per destination. */
export interface OutboxRepository {
  /** Adds rows (ON CONFLICT (key) DO NOTHING), due at once; returns how many were new. */
  add(rows: readonly NewOutboxRow[], now: number): Promise<number>;
  /**
   * Claims the oldest due row — pending, or sending with an expired lease or a holder that is not
   * alive, and `nextAttemptAt <= now` — whose destination has no EARLIER row still unsent (pending or sending), in ONE statement:
   * state `sending`, lease to `owner` until `now + leaseMs`, attempts + 1. So a destination's rows go
   * out in order and one at a time, while other destinations proceed. `moreDue`: the statement saw
   * another row pending and due (one of its destination's included).
   */
  claimNext(owner: string, now: number, leaseMs: number): Promise<Claimed<OutboxRow> | undefined>;
  /** Marks the row sent with the notifier's result. False if `owner` lost the lease. */
  markSent(id: number, owner: string, result: unknown, now: number): Promise<boolean>;
  /**
   * `markSent`, then `claimNext` for the same owner, as one step: what a worker that just delivered a
   * row does next, in one round trip instead of two on a database server. The claim sees the row as
   * sent (when `sent`), so it may hand out the same destination's next row; every rule of `claimNext`
   * holds. `sent` is false (and the row untouched) if `owner` lost the lease; the claim happens anyway.
   */
  markSentAndClaimNext(
    id: number,
    owner: string,
    result: unknown,
    now: number,
    leaseMs: number,
  ): Promise<{ sent: boolean; next: Claimed<OutboxRow> | undefined }>;
  /**
   * Extends `owner`'s lease on a row it is delivering to `now + leaseMs`: a delivery slower than the
   * lease is not taken over by another worker while its own is alive. False if `owner` lost the lease.
   */
  extendLease(id: number, owner: string, now: number, leaseMs: number): Promise<boolean>;
  /** Back to pending (lease cleared) until `nextAttemptAt`, noting the error. False if `owner` lost the lease. */
  retryLater(id: number, owner: string, nextAttemptAt: number, error: string, now: number): Promise<boolean>;
  /** Gives the row up (state failed); later rows of its destination proceed. False if `owner` lost the lease. */
  markFailed(id: number, owner: string, error: string, now: number): Promise<boolean>;
  /** The row with this key. */
  getByKey(key: string): Promise<OutboxRow | undefined>;
  /** Rows in id order, optionally of one destination and/or state. */
  list(options?: { destination?: string; state?: OutboxState }): Promise<OutboxRow[]>;
  /** Number of rows in each state (every state present, 0 when none). */
  counts(): Promise<Record<OutboxState, number>>;
}

/** Fires of cron schedules: each (schedule, slot) fires once, across processes. */
export interface ScheduleFireRepository {
  /** Records a fire once per (schedule, slot); false if that slot was already recorded. */
  record(fire: { schedule: string; slot: string; firedAt: number; status: string; reason?: string; triggerKey?: string }): Promise<boolean>;
  /** Changes the given fields of a recorded fire (absent fields stay as they are). */
  update(schedule: string, slot: string, patch: { status?: string; reason?: string | null; runId?: string | null }): Promise<void>;
  /** The most recent fire of the schedule (by firedAt). */
  latest(schedule: string): Promise<ScheduleFire | undefined>;
  /** The schedule's most recent fires, newest first. */
  list(schedule: string, limit: number): Promise<ScheduleFire[]>;
}

/** Named leases for work one process at a time does (e.g. the tracker tick). */
export interface LeaseRepository {
  /**
   * Takes or renews a named lease until `now + ttlMs` in ONE statement (upsert whose update applies
   * only when the lease expired, its holder is not alive, or `owner` already holds it, … RETURNING);
   * true if `owner` holds it now.
   */
  acquire(name: string, owner: string, now: number, ttlMs: number): Promise<boolean>;
  /** Gives the lease up if `owner` holds it. */
  release(name: string, owner: string): Promise<void>;
}

/** The process an owner belongs to: the part before the first `/` (see "Liveness" in store.ts). */
export function processOfOwner(owner: string): string {
  const slash = owner.indexOf('/');
  return slash < 0 ? owner : owner.slice(0, slash);
}

/** The owner for one of a process's workers (e.g. `outbox-3`); it holds claims on the process's behalf. */
export function workerOwner(processId: string, worker: string): string {
  return `${processId}/${worker}`;
}

export interface ProcessRecord {
  /** Unique per process run, never reused (e.g. host, pid and a random part); contains no `/`. */
  id: string;
  /** The machine, as precisely as it can tell (e.g. hostname and PID namespace): pids are compared only within one host. */
  host: string;
  pid: number;
  startedAt: number;
  heartbeatAt: number;
  /** Its claims are free once `aliveUntil <= now`. */
  aliveUntil: number;
  /** When it stopped cleanly or was found dead; null while it runs. */
  stoppedAt: number | null;
}

/** The processes sharing the database, and whether each is alive (see "Liveness" in store.ts). */
export interface ProcessRepository {
  /**
   * Records that the process runs and is alive until `now + ttlMs` (upsert): at start and at every
   * heartbeat. A process found dead that beats again is alive again (a long pause, not a crash); the
   * claims nobody took over meanwhile are still its own.
   */
  heartbeat(process: { id: string; host: string; pid: number }, now: number, ttlMs: number): Promise<void>;
  /** Marks the process stopped: whatever it still holds is free at once. Unknown ids are ignored. */
  markStopped(id: string, now: number): Promise<void>;
  /**
   * Marks stopped, in one statement, every running process whose heartbeat ran out by `now`, and
   * returns their ids: the caller found them dead (only one caller gets each id) and may take over
   * their work at once.
   */
  reap(now: number): Promise<string[]>;
  /** Processes of `host` not marked stopped, oldest first. */
  listRunning(host: string): Promise<ProcessRecord[]>;
  /** Every process, newest first (diagnostics). */
  list(limit: number): Promise<ProcessRecord[]>;
  /** Deletes processes stopped, or silent, since before `olderThan`; returns how many. */
  prune(olderThan: number): Promise<number>;
}

/** Small named values: the tracker watermark, schedule pause flags. */
export interface SettingRepository {
  get(name: string): Promise<string | undefined>;
  /** Sets (inserts or replaces) the value. */
  set(name: string, value: string): Promise<void>;
}
