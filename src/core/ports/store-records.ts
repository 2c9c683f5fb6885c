/** The records the `Store` port keeps (see `store.ts` for its rules): triggers, owed messages, tracked runs, schedule fires. */
import type { AuditEntry } from './audit.js';
import type { TriggerInput } from './triggers.js';

export const TRIGGER_KINDS = ['start', 'followup', 'cancel'] as const;
export type TriggerKind = (typeof TRIGGER_KINDS)[number];

export const TRIGGER_STATES = ['pending', 'working', 'done', 'failed', 'ignored'] as const;
export type TriggerState = (typeof TRIGGER_STATES)[number];

/**
 * A normalised request from an edge (a surface, a schedule, the CLI), before it is stored: a key
 * (unique across all triggers, e.g. the chat event's id), the source, the anchor (where the request was
 * made and answers go, e.g. `<surface>:C1:1700.1`) and a payload typed by `kind`.
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
  /** The span of the request that stored it, as a W3C `traceparent`; null while tracing is off. */
  traceparent?: string | null;
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
  /** The trace that owes it (the run's, the request's), as a W3C `traceparent`: its delivery links to it. */
  traceparent?: string | null;
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

/**
 * What a claim hands out: the trigger or row, and whether the same statement saw another one pending
 * and due besides it (`moreDue`). A worker wakes another only then, so a wake-up costs one claim when
 * there is one thing to do, instead of a second claim that finds nothing.
 */
export type Claimed<T> = T & { moreDue: boolean };

/**
 * A worker of this process, free now, that a trigger or outbox row being stored may be handed over to
 * at once (`TriggerRepository.enqueue`'s `handTo`): it is then stored already claimed by that worker,
 * as a claim would leave it, and no claim follows.
 */
export interface FreeWorker {
  owner: string;
  leaseMs: number;
}

/** A run the bridge created or adopted, as first stored. */
export interface NewTrackedRun {
  runId: string;
  anchor: string;
  source: string;
  title: string | null;
  /** The route the run was created with (JSON). */
  route: unknown;
  /** Where the run's messages go (outbox destinations, e.g. `<surface>:C1:1700.1`); usually just the anchor. */
  destinations: string[];
  /** Key of the trigger that started the run (its `received` messages are the ones edited), if any. */
  triggerKey: string | null;
  /** The intake span that started it, as a W3C `traceparent`: what is owed about the run links to it. */
  traceparent?: string | null;
  state: string;
  /** The server's `updated_at` of the last observation (RFC 3339), never our clock. */
  serverUpdatedAt: string | null;
  sessionLink: string | null;
  /**
   * The person (their person id) whose personal API key created the run; absent for the service key.
   * The run API may show a run only to the key that created it, so the tracker watches it with that key.
   */
  personalKeyOwner?: string;
  /**
   * Who asked for the run, as a person id: the person behind the requester when known, else
   * the surface's own id of the requester; absent for a schedule or the command line. Usage is summed by it.
   */
  askedBy?: string;
  /** The route's name (the run's config `name`, else the source or schedule name): usage and limits go by it. */
  routeName?: string;
}

/**
 * The credits a run has used so far, as the run API last reported them (`request_usage`).
 * A figure the API left out is absent, and an absent figure never clears one stored before.
 */
export interface RunUsage {
  inferenceCost?: number;
  computeCost?: number;
}

/** Credits = inference + compute; a missing figure counts 0. */
export function creditsOf(usage: RunUsage | undefined): number {
  return (usage?.inferenceCost ?? 0) + (usage?.computeCost ?? 0);
}

export interface TrackedRun extends NewTrackedRun {
  /** Number of observed transitions; 0 when stored. Outbox keys carry it. */
  transition: number;
  /**
   * The issue state moves already made for this run (`started`, `pull_request`): kept with the
   * run, not as prunable event keys, so a run continued weeks later does not move its issue again.
   */
  workflowMoves: string[];
  /** False once the run reached a known terminal state (a follow-up tracks it again). */
  tracked: boolean;
  lastSeenAt: number | null;
  createdAt: number;
  updatedAt: number;
  /** The latest `request_usage` the tracker saw; absent until one was reported. */
  usage?: RunUsage;
}

/** What the tracker saw of a run. */
export interface RunObservation {
  state: string;
  serverUpdatedAt: string | null;
  sessionLink: string | null;
  tracked: boolean;
  /** The usage reported with it; absent: unchanged. */
  usage?: RunUsage;
}

/** A run whose reported usage changed while nothing else did (the tracker records them together). */
export interface MeteredRun {
  runId: string;
  usage: RunUsage;
}

export interface ScheduleFire {
  schedule: string;
  /** The slot the fire is for (e.g. the cron time as ISO string): a slot fires once. */
  slot: string;
  firedAt: number;
  /** `recorded` → `submitted` → `created` | `failed`; or `skipped` | `missed` (see core/schedules/schedule-fire.ts). */
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
  /**
   * The act's audit entry, written in the same transaction (one commit per trigger instead of two); a
   * retried act with the same `onceKey` adds nothing.
   */
  audit?: AuditEntry;
}

export interface TriggerOutcome {
  state: 'done' | 'failed' | 'ignored';
  runId?: string;
  error?: string;
}
