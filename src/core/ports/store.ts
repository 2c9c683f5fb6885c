import type { TriggerInput } from './triggers.js';

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

export const TRIGGER_KINDS = ['start', 'followup', 'cancel'] as const;
export type TriggerKind = (typeof TRIGGER_KINDS)[number];

export const TRIGGER_STATES = ['pending', 'working', 'done', 'failed', 'ignored'] as const;
export type TriggerState = (typeof TRIGGER_STATES)[number];

/**
 * A normalised request from an edge (Slack, Linear, a schedule, the CLI), before it is stored: a key
 * (unique across all triggers, e.g. the Slack event id), the source, the anchor (where the request was
 * made and answers go, e.g. `slack:C1:1700.1`) and a payload typed by `kind`.
 */
export type NewTrigger = TriggerInput;

/** What the store adds to a trigger it keeps. */
export interface TriggerRecord {
  id: number;
  state: TriggerState;
  /** How many times the trigger was claimed. */
  attempts: number;
  nextAttemptAt: number;
  leaseOwner: string | null;
  leaseUntil: number | null;
  /** Set before a run is created, so a recovering worker knows to look for an existing run first. */
  createAttemptedAt: number | null;
  runId: string | null;
  lastError: string | null;
  receivedAt: number;
  updatedAt: number;
}

/** A stored trigger; narrowing on `kind` types its payload. */
export type StoredTrigger = NewTrigger & TriggerRecord;

/** A stored trigger of one kind. */
export type StoredTriggerOf<K extends TriggerKind> = Extract<StoredTrigger, { kind: K }>;

/** A message owed to a person, persisted before it is sent. */
export interface NewOutboxRow {
  /** Unique, e.g. `${runId}:${transition}:${destination}`: adding the same key twice adds one row. */
  key: string;
  /** Rows of one destination are delivered in id order, one at a time. */
  destination: string;
  kind: string;
  payload: unknown;
}

export const OUTBOX_STATES = ['pending', 'sending', 'sent', 'failed'] as const;
export type OutboxState = (typeof OUTBOX_STATES)[number];

export interface OutboxRow extends NewOutboxRow {
  id: number;
  state: OutboxState;
  attempts: number;
  nextAttemptAt: number;
  leaseOwner: string | null;
  leaseUntil: number | null;
  /** What the notifier reported when sending (e.g. the posted message ts), JSON; null until sent. */
  result: unknown;
  lastError: string | null;
  createdAt: number;
  sentAt: number | null;
}

/** A run the bridge created or adopted, as first stored. */
export interface NewTrackedRun {
  runId: string;
  anchor: string;
  source: string;
  title: string | null;
  /** The route the run was created with (JSON). */
  route: unknown;
  /** Where the run's messages go (outbox destinations, e.g. `slack:C1:1700.1`); usually just the anchor. */
  destinations: string[];
  /** Key of the trigger that started the run (its `received` messages are the ones edited), if any. */
  triggerKey: string | null;
  state: string;
  /** The server's `updated_at` of the last observation (RFC 3339), never our clock. */
  serverUpdatedAt: string | null;
  sessionLink: string | null;
  /**
   * The person (Slack user id) whose personal API key created the run; absent for the service key.
   * The run API may show a run only to the key that created it, so the tracker watches it with that key.
   */
  keyOwner?: string;
}

export interface TrackedRun extends NewTrackedRun {
  /** Number of observed transitions; 0 when stored. Outbox keys carry it. */
  transition: number;
  /**
   * The `linear.states` moves already made for this run (`started`, `pull_request`): kept with the
   * run, not as prunable event keys, so a run continued weeks later does not move its issue again.
   */
  workflowMoves: string[];
  /** False once the run reached a known terminal state (a follow-up tracks it again). */
  tracked: boolean;
  lastSeenAt: number | null;
  createdAt: number;
  updatedAt: number;
}

/** What the tracker saw of a run. */
export interface RunObservation {
  state: string;
  serverUpdatedAt: string | null;
  sessionLink: string | null;
  tracked: boolean;
}

export interface ScheduleFire {
  schedule: string;
  /** The slot the fire is for (e.g. the cron time as ISO string): a slot fires once. */
  slot: string;
  firedAt: number;
  /** `recorded` → `submitted` → `created` | `failed`; or `skipped` | `missed` (see core/schedule-fire.ts). */
  status: string;
  reason: string | null;
  triggerKey: string | null;
  runId: string | null;
}

/** Side effects of ending a trigger, written in the same transaction as its new state. */
export interface TriggerEffects {
  /** A run to store as tracked (nothing happens if it is already stored). */
  run?: NewTrackedRun;
  /** Links the anchor to the run and makes it the anchor's current run. */
  link?: { anchor: string; runId: string };
  /** Tracks an existing run again (a follow-up revives an ended run). */
  retrack?: string;
  /** Outbox rows owed for the outcome. */
  owed?: NewOutboxRow[];
  /**
   * Other triggers the same owner claimed with this one (`claimFollowing`: follow-ups sent as one),
   * ended with the same state and run in the same transaction, where the owner still holds them.
   */
  together?: readonly number[];
}

export interface TriggerOutcome {
  state: 'done' | 'failed' | 'ignored';
  runId?: string;
  error?: string;
}

/** The inbox: triggers are stored once, then claimed and worked on by one worker at a time. */
export interface TriggerRepository {
  /**
   * Stores a trigger once per key (INSERT … ON CONFLICT DO NOTHING) together with the outbox rows
   * owed for it, in one transaction; the rows are only added when the trigger is new. Returns the
   * stored trigger either way (the earlier one when the key was known). `rememberKeys` are event keys
   * (e.g. a webhook's delivery id) remembered in the same transaction, new trigger or not. `dueAt`
   * (default `now`) is when a new trigger first becomes claimable: follow-ups gathered for a window.
   */
  enqueue(
    trigger: NewTrigger,
    owed: NewOutboxRow[],
    now: number,
    rememberKeys?: readonly string[],
    dueAt?: number,
  ): Promise<{ inserted: boolean; trigger: StoredTrigger }>;
  /**
   * Claims the oldest due trigger — pending, or working with an expired lease or a holder that is not
   * alive, and `nextAttemptAt <= now` — in ONE `UPDATE … RETURNING`: state `working`, lease to `owner` until
   * `now + leaseMs`, attempts + 1. Triggers of one anchor are worked on in order, one at a time: a
   * trigger is not claimable while an earlier trigger of its anchor is still pending or working.
   * Undefined when nothing is due.
   */
  claimNext(owner: string, now: number, leaseMs: number): Promise<StoredTrigger | undefined>;
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
  /** Tracked runs whose anchor starts with `prefix` (e.g. one Slack channel's threads), newest first. */
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
   * Slack thread that joined an issue's run becomes one of its places). True if it was added; false
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
   * out in order and one at a time, while other destinations proceed.
   */
  claimNext(owner: string, now: number, leaseMs: number): Promise<OutboxRow | undefined>;
  /** Marks the row sent with the notifier's result. False if `owner` lost the lease. */
  markSent(id: number, owner: string, result: unknown, now: number): Promise<boolean>;
  /**
   * `markSent`, then `claimNext` for the same owner, as one step: what a worker that just delivered a
   * row does next, in one round trip instead of two on a database server. The claim sees the row as
   * sent (when `sent`), so it may hand out the same destination's next row; every rule of `claimNext`
   * holds. `sent` is false (and the row untouched) if `owner` lost the lease; the claim happens anyway.
   */
  markSentAndClaimNext(id: number, owner: string, result: unknown, now: number, leaseMs: number): Promise<{ sent: boolean; next: OutboxRow | undefined }>;
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

/** The process an owner belongs to: the part before the first `/` (see the header on liveness). */
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

/** The processes sharing the database, and whether each is alive (see the header on liveness). */
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
  /**
   * With `person`: ids it stands for besides itself — the console resolves a typed Slack user ID in
   * any case, or a Slack display name it knows, to user ids. Who asked is then any of them as well.
   */
  personIds?: readonly string[];
  /**
   * Whose run it is, by Slack user id exactly: they asked for it, or it runs under their key (a Linear
   * request of theirs). The console narrows a person's view to their own runs with it.
   */
  ownedBy?: string;
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

/** A person's connected API key as stored: sealed (never the key itself) and what people may see of it. */
export interface PersonKeyRecord {
  /** The person: their Slack user id. */
  personId: string;
  /** The key sealed by the key box (opaque to the store). */
  sealed: string;
  /** The key's last 4 characters, the only part ever shown. */
  lastFour: string;
  /** When it was connected (epoch ms). */
  connectedAt: number;
  /** When a run was last started, followed up or cancelled with it (epoch ms). */
  lastUsedAt: number | null;
}

/** People's personal API keys (issue 20), sealed; the store never sees a key in the clear. */
export interface PersonKeyRepository {
  /** Stores (or replaces) the person's key; `lastUsedAt` starts empty. */
  put(record: Omit<PersonKeyRecord, 'lastUsedAt'>): Promise<void>;
  get(personId: string): Promise<PersonKeyRecord | undefined>;
  /** Removes the person's key; false when there was none. */
  remove(personId: string): Promise<boolean>;
  /** Records that the key was used at `now`. */
  touch(personId: string, now: number): Promise<void>;
  /** How many keys are stored. */
  count(): Promise<number>;
  /** Every stored key, by person id. */
  list(): Promise<PersonKeyRecord[]>;
  /**
   * Replaces the sealed text of each listed person's key in one transaction (a rotation): all or
   * nothing. Returns how many rows changed.
   */
  reseal(updates: readonly { personId: string; sealed: string }[]): Promise<number>;
}

/** How a Linear user was found to be a Slack user: the same verified email, or an admin's link on the console. */
export type PersonLinkHow = 'email' | 'console';

/** A Linear user known to be a Slack user (issue 20): Linear triggers by them belong to that person. */
export interface PersonLinkRecord {
  linearUserId: string;
  /** The person: their Slack user id. */
  slackUserId: string;
  how: PersonLinkHow;
  /** When the link was made (epoch ms). */
  linkedAt: number;
}

/** Links from Linear users to Slack users; a console link outranks an email link. */
export interface PersonLinkRepository {
  /**
   * Stores a link in one statement. A `console` link replaces whatever was there; an `email` link is
   * stored only where there is none (a lookup racing an admin never undoes the admin). True when stored.
   */
  put(record: PersonLinkRecord): Promise<boolean>;
  get(linearUserId: string): Promise<PersonLinkRecord | undefined>;
  /** Every link, by Linear user id. */
  list(): Promise<PersonLinkRecord[]>;
  /** Removes the link; false when there was none. */
  remove(linearUserId: string): Promise<boolean>;
}

/** What another process stored: new triggers to work on, or new outbox rows to deliver. */
export type StoreChange = 'triggers' | 'outbox';

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
  /** Linear users known to be Slack users. */
  personLinks: PersonLinkRepository;
  /** Cheap query proving the database answers (readiness). */
  ping(): Promise<void>;
  /**
   * Optional: calls `listener` soon after any process sharing the database (this one included) commits
   * new triggers or outbox rows, so workers wake at once instead of at their next poll. Stores whose
   * processes cannot tell each other (SQLite) leave it out; polling is the safety net either way.
   * Returns the function that unsubscribes.
   */
  onChange?(listener: (change: StoreChange) => void): () => void;
  /** Closes the database; calling it again does nothing. */
  close(): Promise<void>;
}
