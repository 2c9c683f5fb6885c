import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { OutboxMessage } from '../ports/messages.js';
import { noMetrics, type CoreMetrics } from '../ports/metrics.js';
import { NotifierError, platformOf, type Notifier } from '../ports/notifier.js';
import type { Claimed, OutboxRow, Store } from '../ports/store.js';
import { renewLease } from '../lease-renewal.js';
import type { HandOverWorker } from '../hand-over/hand-over.js';
import { WaitingWork } from '../hand-over/waiting-work.js';
import { SentResults } from './sent-results.js';
import { ATTR, SPAN } from '../ports/trace-names.js';
import { tracing } from '../ports/tracing.js';

/** Tuning of the outbox worker; every field has a default. */
export interface OutboxWorkerOptions {
  /**
   * How long a claimed row is ours (default 60 s). A notifier call must finish well within it (the
   * HTTP notifiers time out sooner): after it, another worker may deliver the row again.
   */
  leaseMs?: number;
  /** Backoff before the second attempt (default 1 s); doubles with every further attempt. */
  baseBackoffMs?: number;
  /** Longest backoff (default 5 min). A notifier's `retryAfterMs` may ask for longer. */
  maxBackoffMs?: number;
  /** A row still failing this long after it was added is given up (default 24 h). */
  giveUpAfterMs?: number;
}

export interface OutboxWorkerDeps {
  store: Store;
  notifiers: Notifier[];
  clock: Clock;
  logger: Logger;
  metrics?: CoreMetrics;
  /** Lease owner: unique per worker (host, pid, a random part), never shared by two workers. */
  owner: string;
  options?: OutboxWorkerOptions;
  /** Jitter source in [0, 1); default `Math.random`. Tests pin it. */
  random?: () => number;
  /** Results delivered recently, shared by a process's workers (default: this worker's own). */
  sentResults?: SentResults;
}

const DEFAULTS: Required<OutboxWorkerOptions> = {
  leaseMs: 60_000,
  baseBackoffMs: 1_000,
  maxBackoffMs: 300_000,
  giveUpAfterMs: 24 * 60 * 60 * 1000,
};

/** Longest error text stored on a row or logged. */
const MAX_ERROR_LENGTH = 500;

/**
 * Delivers the outbox: claims one due row at a time through the store (so any number of workers, in
 * any number of processes, share the work and each row has one holder at a time), hands it to the
 * notifier of its destination's platform and records the outcome.
 *
 * Delivery is at least once: a worker that dies after the notifier succeeded but before `markSent`
 * leaves a leased row that another worker re-delivers after the lease, or as soon as that process
 * is found dead (core/liveness/liveness.ts) — with the same `Delivery.key`, which notifiers use as their
 * idempotency key so people see the message once.
 *
 * Order per destination is the store's job: `claimNext` never hands out a destination's later row
 * while an earlier one is unsent, so a row waiting for its retry holds the rows behind it, and
 * messages in one thread never overtake each other while other destinations keep flowing.
 */
export class OutboxWorker implements HandOverWorker<OutboxRow> {
  private readonly store: Store;
  private readonly notifiers: ReadonlyMap<string, Notifier>;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly metrics: CoreMetrics;
  /** Lease owner of the rows this worker claims. */
  readonly owner: string;
  private readonly options: Required<OutboxWorkerOptions>;
  private readonly random: () => number;
  /**
   * Rows claimed for this worker before the pass that delivers them, each with its lease renewed (the
   * pass may wait at the work gate first): the one the last `markSentAndClaimNext` claimed, and one
   * the store handed over as it was added (`take`). The first goes first: it is the older claim.
   */
  private readonly claimedAhead: WaitingWork<Claimed<OutboxRow>>;
  private readonly handed: WaitingWork<Claimed<OutboxRow>>;
  /** The last `deliverOnce` marked its row sent and that statement's claim found no next row. */
  private foundNoNext = false;
  private readonly sentResults: SentResults;

  constructor(deps: OutboxWorkerDeps) {
    const notifiers = new Map<string, Notifier>();
    for (const notifier of deps.notifiers) {
      // Two notifiers for one platform would make delivery depend on list order: refuse at start.
      if (notifiers.has(notifier.platform)) throw new Error(`two notifiers for platform "${notifier.platform}"`);
      notifiers.set(notifier.platform, notifier);
    }
    this.store = deps.store;
    this.notifiers = notifiers;
    this.clock = deps.clock;
    this.logger = deps.logger.child({ component: 'outbox' });
    this.metrics = deps.metrics ?? noMetrics;
    this.owner = deps.owner;
    this.options = { ...DEFAULTS, ...definedOnly(deps.options ?? {}) };
    this.random = deps.random ?? Math.random;
    this.sentResults = deps.sentResults ?? new SentResults();
    const waiting = () =>
      new WaitingWork<Claimed<OutboxRow>>(
        `outbox worker ${this.owner}`,
        (row) => this.keepLease(row),
        (row) => `row ${row.key}`,
      );
    this.claimedAhead = waiting();
    this.handed = waiting();
  }

  /**
   * Claims one due row and delivers it. Resolves false when nothing is due, true when a row was
   * handled (sent, rescheduled or given up). Store errors are not caught: the loop logs them and the
   * row's lease runs out, so another pass delivers it. `onClaimed` is told as soon as a row is
   * claimed whose claim saw another row due, before the (possibly slow) delivery: the caller may start
   * another worker meanwhile.
   *
   * A row delivered is marked sent and the next one claimed in the same store call, and that row is
   * this call's answer's follow-up: the next `deliverOnce` delivers it without claiming (one round
   * trip per row instead of two on PostgreSQL), its lease renewed meanwhile. A worker stopped in
   * between gives it back (`letGo`).
   */
  async deliverOnce(onClaimed?: () => void): Promise<boolean> {
    this.foundNoNext = false;
    const waiting = this.claimedAhead.next() ?? this.handed.next();
    const row = waiting?.work ?? (await this.store.outbox.claimNext(this.owner, this.clock.now(), this.options.leaseMs));
    if (!row) return false;
    if (row.moreDue) onClaimed?.();
    const platform = platformOf(row.destination);
    const fields = { outboxKey: row.key, destination: row.destination, kind: row.kind, attempt: row.attempts };
    const notifier = this.notifiers.get(platform);
    if (!notifier) {
      waiting?.stopRenewing();
      // A configuration problem (e.g. rows for a surface that is off): retrying cannot help.
      const error = `no notifier for platform "${platform}"`;
      this.logger.error({ ...fields, platform }, `outbox row dropped: ${error}`);
      this.metrics.outboxFailed(platform);
      await this.guarded(row, 'markFailed', this.store.outbox.markFailed(row.id, this.owner, error, this.clock.now()));
      return true;
    }

    let result: unknown;
    const stopRenewing = waiting?.stopRenewing ?? this.keepLease(row);
    try {
      result = await this.send(notifier, row);
    } catch (error) {
      stopRenewing();
      await this.failed(row, platform, fields, error);
      return true;
    }
    stopRenewing();
    this.metrics.outboxDelivered(platform);
    const { sent, next } = await this.store.outbox.markSentAndClaimNext(row.id, this.owner, result ?? null, this.clock.now(), this.options.leaseMs);
    await this.guarded(row, 'markSent', Promise.resolve(sent));
    if (sent) this.sentResults.record(row.key, result);
    if (next) this.claimedAhead.keep(next);
    this.foundNoNext = next === undefined;
    return true;
  }

  /**
   * Hands one row to its notifier. Tracing on, inside a span of its own trace linked to the trace that
   * owes the row (the run's, the request's): a delivery is found from the run, and a platform's slow
   * answer is not counted in the request that caused it.
   */
  private send(notifier: Notifier, row: OutboxRow): Promise<unknown> {
    const delivery = {
      key: row.key,
      destination: row.destination,
      message: row.payload as OutboxMessage,
      attempt: row.attempts - 1,
      resultOf: (key: string) => this.resultOf(key),
    };
    const traces = tracing();
    if (!traces.on) return notifier.deliver(delivery);
    const runId = runOf(delivery.message);
    const attributes = {
      [ATTR.place]: row.destination,
      [ATTR.outboxKind]: row.kind,
      [ATTR.attempt]: row.attempts,
      // The run it is about, where the message names one: a search by run id finds every message sent about it.
      ...(runId !== undefined && { [ATTR.runId]: runId, [ATTR.genAiConversation]: runId }),
    };
    return traces.inSpan(SPAN.delivery, { kind: 'producer', root: true, links: [row.traceparent], attributes }, () => notifier.deliver(delivery));
  }

  /**
   * `deliverOnce` for a loop: resolves whether more may be due. False also after a row delivered
   * whose `markSentAndClaimNext` claimed nothing: that claim just looked, so another would find
   * nothing too (a row stored since wakes the workers).
   */
  async deliverNext(onClaimed?: () => void): Promise<boolean> {
    return (await this.deliverOnce(onClaimed)) && !this.foundNoNext;
  }

  /**
   * Keeps the row's lease while its delivery lasts (`renewLease`, as intake does for a trigger): a
   * platform call slower than the lease is not delivered a second time by another worker while this
   * one is alive. Returns the stop.
   */
  private keepLease(row: OutboxRow): () => void {
    return renewLease(this.clock, this.options.leaseMs, {
      extend: () => this.store.outbox.extendLease(row.id, this.owner, this.clock.now(), this.options.leaseMs),
      lost: () => this.logger.warn({ outboxKey: row.key }, 'lost the lease on a row while delivering it'),
      failed: (error) => {
        this.logger.warn({ err: error, outboxKey: row.key }, 'could not renew the lease on a row being delivered');
        return true;
      },
    });
  }

  /** The lease its rows are claimed for (a row handed over as it is added included). */
  get leaseMs(): number {
    return this.options.leaseMs;
  }

  /**
   * Takes the row the store handed over to this worker as it was added (`IntakeService`, `RowTaker`):
   * a later `deliverOnce` delivers it without claiming. Its lease is renewed from now on, since the
   * pass may wait at the work gate first.
   */
  take(row: OutboxRow): void {
    this.handed.keep({ ...row, moreDue: false });
  }

  /** Whether a row claimed for this worker (handed over, or claimed with the last delivery) waits for its delivery. */
  get hasWorkWaiting(): boolean {
    return this.handed.has || this.claimedAhead.has;
  }

  /**
   * Gives back the rows claimed for this worker and not delivered (the loops stopped before their
   * pass): pending again, so any worker delivers them at once rather than after their lease.
   */
  async letGo(): Promise<void> {
    const giveBack = (row: OutboxRow) =>
      this.store.outbox.retryLater(row.id, this.owner, this.clock.now(), 'given back unsent: the worker stopped', this.clock.now());
    await this.claimedAhead.letGo(giveBack);
    await this.handed.letGo(giveBack);
  }

  /** What an earlier row delivered: from this process's recent deliveries, else from the store. */
  private async resultOf(key: string): Promise<unknown> {
    const known = this.sentResults.lookup(key);
    if (known.found) return known.result;
    const earlier = await this.store.outbox.getByKey(key);
    return earlier?.state === 'sent' ? earlier.result : undefined;
  }

  /** Delivers until nothing is due (or `maxRows` were handled); returns how many rows were handled. */
  async drain(maxRows = Number.POSITIVE_INFINITY): Promise<number> {
    let handled = 0;
    while (handled < maxRows && (await this.deliverOnce())) handled++;
    return handled;
  }

  private async failed(row: OutboxRow, platform: string, fields: object, error: unknown): Promise<void> {
    const now = this.clock.now();
    const text = safeErrorText(error);
    if (error instanceof NotifierError && !error.retryable) {
      this.logger.warn({ ...fields, code: error.code, error: text }, 'outbox row failed permanently');
      this.metrics.outboxFailed(platform);
      await this.guarded(row, 'markFailed', this.store.outbox.markFailed(row.id, this.owner, text, now));
      return;
    }
    // Retryable, or unknown: a bug or a network fault must not drop a message — until it is too old.
    if (now - row.createdAt >= this.options.giveUpAfterMs) {
      this.logger.error({ ...fields, error: text, ageMs: now - row.createdAt }, 'outbox row given up: a message nobody received');
      this.metrics.outboxFailed(platform);
      await this.guarded(row, 'markFailed', this.store.outbox.markFailed(row.id, this.owner, text, now));
      return;
    }
    const retryAfterMs = error instanceof NotifierError ? (error.retryAfterMs ?? 0) : 0;
    const delayMs = Math.max(retryAfterMs, this.backoff(row.attempts));
    const logFields = { ...fields, error: text, delayMs, ...(error instanceof NotifierError ? { code: error.code } : {}) };
    // An expected platform hiccup (rate limit, outage) is info; an unknown error may be a bug: warn.
    if (error instanceof NotifierError) this.logger.info(logFields, 'outbox delivery failed; will retry');
    else this.logger.warn(logFields, 'outbox delivery threw an unexpected error; will retry');
    this.metrics.outboxRetried(platform);
    await this.guarded(row, 'retryLater', this.store.outbox.retryLater(row.id, this.owner, now + delayMs, text, now));
  }

  /**
   * Exponential backoff for the attempt just made (1-based), capped, with jitter: between half and
   * all of it, so rows that failed together (a platform outage) do not all retry at the same moment.
   */
  private backoff(attempts: number): number {
    const { baseBackoffMs, maxBackoffMs } = this.options;
    const exponent = Math.min(Math.max(attempts - 1, 0), 40); // 2^40 × base exceeds any sane cap
    const full = Math.min(maxBackoffMs, baseBackoffMs * 2 ** exponent);
    return full - Math.floor(full * 0.5 * this.random());
  }

  /** Awaits a guarded write; a lost lease means another worker owns the row now, so we step back. */
  private async guarded(row: OutboxRow, action: string, write: Promise<boolean>): Promise<void> {
    if (!(await write)) this.logger.debug({ outboxKey: row.key, action }, 'outbox lease lost; another worker has the row');
  }
}

/**
 * Error text safe to store and log (docs/architecture.md §8: no secrets in error texts). Notifiers build their
 * NotifierError messages to be safe; of anything else only the name and message are kept — never a
 * stack, cause, request or headers — and truncated.
 */
export function safeErrorText(error: unknown): string {
  let text: string;
  if (error instanceof NotifierError) text = `${error.code}: ${error.message}`;
  else if (error instanceof Error) text = `${error.name}: ${error.message}`;
  else text = `non-error value thrown (${typeof error})`; // its content could be anything: leave it out
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH - 1)}…` : text;
}

/** Drops keys whose value is undefined, so `{ leaseMs: undefined }` keeps the default. */
function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as Partial<T>;
}

/** The run a message is about, when it names one (a status, an announcement, a follow-up taken). */
function runOf(message: OutboxMessage): string | undefined {
  if ('run' in message) return message.run.runId;
  if ('runId' in message) return message.runId;
  return undefined;
}
