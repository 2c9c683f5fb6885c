/**
 * The tracker: notices state changes of the runs we track and turns each one into outbox rows.
 *
 * Cost is what matters at scale: one tick lists only the runs the server changed since the
 * watermark (`updated_after`), so 10,000 quiet runs cost one list page, not 10,000 requests. The
 * watermark is the largest `updated_at` the server returned (minus a margin for races), never our
 * clock. A bounded number of per-run GETs per tick covers what a list cannot show: runs in states we
 * do not know, and runs we have never observed or not for too long.
 *
 * Exactly once: every transition is recorded with a compare-and-set on the run's transition number,
 * together with its outbox rows, so two processes (or a tick that outlived its lease) cannot announce
 * one transition twice. The `tracker` lease makes one process tick at a time.
 */
import { KNOWN_RUN_STATES, isAgentApiError, isTerminalState, type AgentApiErrorKind, type AgentRuns, type RunItem, type RunPage } from '../ports/agent-runs.js';
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import { receivedKey, transitionKey, type OutboxMessage } from '../ports/messages.js';
import type { CoreMetrics } from '../ports/metrics.js';
import { toSnapshot } from './run-snapshot.js';
import { announceOf, isAnnounced, requestOptionsOf } from './route-policy.js';
import type { NewOutboxRow, Store, TrackedRun } from '../ports/store.js';
import { TRACKER_LISTED_AT, TRACKER_SCAN, TRACKER_WATERMARK, cancelledByKey } from '../ports/setting-keys.js';

/** Name of the lease one process holds while it ticks. */
export const TRACKER_LEASE = 'tracker';

export interface TrackerOptions {
  /** List page size (1–500). */
  pageSize: number;
  /** Time between ticks; sets the lease length and the default `staleAfterMs`. */
  intervalMs: number;
  /** Subtracted from the watermark, so changes racing a list are listed again. Default 5000. */
  watermarkMarginMs?: number;
  /** List pages per tick; a longer traversal resumes next tick. Default 20. */
  maxPagesPerTick?: number;
  /** Per-run GETs per tick. Default 20. */
  maxGetsPerTick?: number;
  /** A run not observed for this long (and not vouched for by a list) is fetched. Default 10 × interval. */
  staleAfterMs?: number;
  /**
   * How long the tracker lease lasts without renewal: a ticker that hangs is replaced after it, a
   * crashed one as soon as its process is found dead (core/liveness.ts). Default max(2 × interval, 30 s).
   */
  leaseMs?: number;
}

export interface TrackerDeps {
  store: Store;
  runs: AgentRuns;
  clock: Clock;
  logger: Logger;
  metrics?: CoreMetrics;
  /** Unique per process: the lease owner. */
  owner: string;
  options: TrackerOptions;
}

/**
 * What one tick did: `ran` is false when another process holds the lease; `requests` counts run-API
 * requests (list pages and GETs, failed ones too); `changed` the transitions recorded; `tracked` the
 * runs still tracked afterwards.
 */
export interface TickReport {
  ran: boolean;
  requests: number;
  changed: number;
  tracked: number;
}

/** A traversal in progress; `top` is the largest `updated_at` of its first tick (see `listPhase`). */
interface Scan {
  updatedAfter: string;
  cursor: string | null;
  top: string | null;
  startedAt: number;
}

/** One tick: `gets` left of the budget, runs `observed` (not fetched again), runs `seen` unchanged (touched together). */
interface Pass {
  now: number;
  requests: number;
  changed: number;
  gets: number;
  observed: Set<string>;
  seen: string[];
}

/** Errors that mean the run API as a whole is unavailable: further GETs this tick would fail too. */
const OUTAGE: ReadonlySet<AgentApiErrorKind> = new Set(['authentication', 'permission', 'rate_limited', 'server', 'connection', 'timeout']);
/** `listStale` threshold that selects only runs never observed (lastSeenAt null). */
const NEVER_SEEN = Number.MIN_SAFE_INTEGER;

function instant(text: string | null | undefined): number | undefined {
  if (!text) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}

/** True when both timestamps parse and `a` is a later instant than `b`. */
function isLater(a: string | null | undefined, b: string | null | undefined): boolean {
  const x = instant(a);
  const y = instant(b);
  return x !== undefined && y !== undefined && x > y;
}

/** The later of two server timestamps, keeping the server's own string. */
function later(current: string | null, candidate: string | null | undefined): string | null {
  if (instant(candidate) === undefined) return current;
  return current === null || isLater(candidate, current) ? (candidate as string) : current;
}

/** Watches tracked runs; call `tick()` every `intervalMs` (e.g. through `startLoop`). */
export class Tracker {
  private readonly store: Store;
  private readonly runs: AgentRuns;
  private readonly logger: Logger;
  private readonly limits: { leaseMs: number; marginMs: number; maxPages: number; maxGets: number; staleAfterMs: number };

  constructor(private readonly deps: TrackerDeps) {
    const { options } = deps;
    this.store = deps.store;
    this.runs = deps.runs;
    this.logger = deps.logger.child({ component: 'tracker' });
    this.limits = {
      // Long enough that a slow tick keeps it; short enough that a dead process is replaced soon.
      leaseMs: options.leaseMs ?? Math.max(2 * options.intervalMs, 30_000),
      marginMs: options.watermarkMarginMs ?? 5000,
      maxPages: Math.max(1, options.maxPagesPerTick ?? 20),
      maxGets: Math.max(0, options.maxGetsPerTick ?? 20),
      staleAfterMs: options.staleAfterMs ?? 10 * options.intervalMs,
    };
  }

  /** One pass: list what changed, fetch what a list cannot show, record transitions. */
  async tick(): Promise<TickReport> {
    const now = this.deps.clock.now();
    if (!(await this.store.leases.acquire(TRACKER_LEASE, this.deps.owner, now, this.limits.leaseMs))) {
      return { ran: false, requests: 0, changed: 0, tracked: 0 };
    }
    const pass: Pass = { now, requests: 0, changed: 0, gets: this.limits.maxGets, observed: new Set(), seen: [] };
    if ((await this.store.trackedRuns.countTracked()) > 0) {
      const watermark = await this.store.settings.get(TRACKER_WATERMARK);
      if (instant(watermark) !== undefined) await this.listPhase(pass, watermark as string);
      else await this.bootstrap(pass);
      await this.getPhase(pass);
    }
    const report = { ran: true, requests: pass.requests, changed: pass.changed, tracked: await this.store.trackedRuns.countTracked() };
    this.deps.metrics?.trackerTick({ requests: report.requests, changed: report.changed, tracked: report.tracked });
    return report;
  }

  /** Gives the lease up (at shutdown), so another process takes over without waiting it out. */
  async release(): Promise<void> {
    await this.store.leases.release(TRACKER_LEASE, this.deps.owner);
  }

  /**
   * Lists runs updated after watermark − margin, newest first, page by page. A traversal longer than
   * `maxPagesPerTick` resumes from its cursor next tick. Its watermark is then the largest
   * `updated_at` of its FIRST tick: a run changed later, on a page already passed, has a later
   * `updated_at` and is listed by the next traversal.
   */
  private async listPhase(pass: Pass, watermark: string): Promise<void> {
    const saved = await this.loadScan();
    const resumed = saved !== undefined;
    const scan: Scan = saved ?? {
      updatedAfter: new Date((instant(watermark) as number) - this.limits.marginMs).toISOString(),
      cursor: null,
      top: null,
      startedAt: pass.now,
    };
    for (let pages = 0; pages < this.limits.maxPages; pages++) {
      let page: RunPage;
      try {
        pass.requests++;
        const cursor = scan.cursor === null ? {} : { cursor: scan.cursor };
        page = await this.runs.listRuns({ updated_after: scan.updatedAfter, limit: this.deps.options.pageSize, ...cursor });
      } catch (error) {
        if (!isAgentApiError(error)) throw error;
        this.logger.warn({ code: error.code, status: error.status, err: error }, 'listing changed runs failed; watermark unchanged');
        // A cursor the server rejects cannot be resumed: the next tick starts over from the watermark.
        // Otherwise it resumes from the last page that was processed.
        if (scan.cursor !== null) await this.saveScan(error.kind === 'bad_request' ? undefined : scan);
        return;
      }
      for (const item of page.runs) {
        if (!resumed) scan.top = later(scan.top, item.updated_at);
        const stored = await this.store.trackedRuns.get(item.run_id);
        if (stored?.tracked) await this.observe(pass, stored, item);
      }
      await this.flushSeen(pass);
      const next = page.page_info.next_cursor;
      if (!page.page_info.has_next_page || !next) {
        if (scan.top !== null && isLater(scan.top, watermark)) await this.store.settings.set(TRACKER_WATERMARK, scan.top);
        await this.store.settings.set(TRACKER_LISTED_AT, String(scan.startedAt));
        if (resumed) await this.saveScan(undefined);
        return;
      }
      scan.cursor = next;
    }
    this.logger.info({ pages: this.limits.maxPages }, 'many runs changed; the list continues next tick');
    await this.saveScan(scan);
  }

  /** Fresh database: no watermark yet, so fetch tracked runs one by one (not the whole list) and take it from them. */
  private async bootstrap(pass: Pass): Promise<void> {
    let top: string | null = null;
    for (const stored of await this.store.trackedRuns.listStale(pass.now + 1, pass.gets)) {
      const item = await this.fetch(pass, stored);
      if (item === 'stop') break;
      top = later(top, item?.updated_at);
    }
    await this.flushSeen(pass);
    if (top !== null) await this.store.settings.set(TRACKER_WATERMARK, top);
  }

  /**
   * Per-run GETs within the tick's budget: runs in states we do not know, then stale runs. A complete
   * list traversal within `staleAfterMs` vouches for every run observed before it (it would have
   * shown any change), so then only runs never observed at all are in doubt.
   */
  private async getPhase(pass: Pass): Promise<void> {
    if (pass.gets <= 0) return;
    const listedAt = Number((await this.store.settings.get(TRACKER_LISTED_AT)) ?? Number.NaN);
    const seenBefore = listedAt >= pass.now - this.limits.staleAfterMs ? NEVER_SEEN : pass.now - this.limits.staleAfterMs;
    const candidates = [
      ...(await this.store.trackedRuns.listTrackedNotInStates(KNOWN_RUN_STATES, pass.gets)),
      ...(await this.store.trackedRuns.listStale(seenBefore, pass.gets)),
    ];
    for (const stored of candidates) {
      if (pass.gets <= 0) break;
      if (pass.observed.has(stored.runId)) continue;
      if ((await this.fetch(pass, stored)) === 'stop') break;
    }
    await this.flushSeen(pass);
  }

  /** GETs one run and observes it. Undefined when it failed for this run only; 'stop' on an outage. */
  private async fetch(pass: Pass, stored: TrackedRun): Promise<RunItem | undefined | 'stop'> {
    pass.gets--;
    pass.requests++;
    pass.observed.add(stored.runId);
    let item: RunItem;
    try {
      item = await this.runs.getRun(stored.runId);
    } catch (error) {
      if (!isAgentApiError(error)) throw error;
      if (error.kind === 'not_found') {
        await this.forget(pass, stored);
        return undefined;
      }
      this.logger.warn({ runId: stored.runId, code: error.code, status: error.status, err: error }, 'fetching a tracked run failed');
      return OUTAGE.has(error.kind) ? 'stop' : undefined;
    }
    await this.observe(pass, stored, item);
    return item;
  }

  /** Compares what the API reports with the stored observation; records a transition or marks it seen. */
  private async observe(pass: Pass, stored: TrackedRun, reported: RunItem): Promise<void> {
    pass.observed.add(stored.runId);
    // An answer older than what is stored (another process saw a later one) must not undo it.
    if (isLater(stored.serverUpdatedAt, reported.updated_at)) return;
    // A list may omit the link; absence is no news, so it never clears a link we know.
    const sessionLink = reported.session_link || stored.sessionLink;
    const stateChanged = reported.state !== stored.state;
    // Tracked although ended: a follow-up revived it. Ended again with a later updated_at is a new
    // ending (the states in between may have passed between two ticks) and is announced again.
    const endedAgain = !stateChanged && stored.tracked && isTerminalState(stored.state) && isLater(reported.updated_at, stored.serverUpdatedAt);
    if (!stateChanged && !endedAgain && sessionLink === stored.sessionLink) {
      pass.seen.push(stored.runId);
      return;
    }
    const announce = (stateChanged || endedAgain) && isAnnounced(announceOf(stored.route), reported.state);
    const owed = await this.owedRows(stored, reported, sessionLink, announce);
    const observation = {
      state: reported.state,
      serverUpdatedAt: later(stored.serverUpdatedAt, reported.updated_at),
      sessionLink,
      tracked: !isTerminalState(reported.state),
    };
    if (await this.store.trackedRuns.recordTransition(stored.runId, stored.transition, observation, owed, pass.now)) {
      pass.changed++;
      this.logger.info({ runId: stored.runId, from: stored.state, to: reported.state, transition: stored.transition + 1 }, 'run state changed');
    } else {
      this.logger.debug({ runId: stored.runId }, 'transition already recorded by another process');
    }
  }

  /** The rows a transition owes each destination: a status edit always, an announcement for BLOCKED and end states. */
  private async owedRows(stored: TrackedRun, run: RunItem, sessionLink: string | null, announce: boolean): Promise<NewOutboxRow[]> {
    const transition = stored.transition + 1;
    const snapshot = toSnapshot({ ...run, session_link: sessionLink }, stored.title ?? stored.runId);
    const options = requestOptionsOf(stored.route);
    if (options) snapshot.options = options;
    // Who pressed Cancel is known to the intake worker only, which leaves it in a setting.
    const cancelledBy = announce && run.state === 'CANCELLED' ? await this.store.settings.get(cancelledByKey(stored.runId)) : undefined;
    return stored.destinations.flatMap((destination) => {
      const received = receivedKey(stored.triggerKey ?? stored.runId, destination);
      const status: OutboxMessage = { kind: 'status', run: snapshot, receivedKey: received };
      const rows: NewOutboxRow[] = [{ key: transitionKey(stored.runId, transition, destination, 'status'), destination, kind: 'status', payload: status }];
      if (announce) {
        const message: OutboxMessage = { kind: 'announce', run: snapshot, receivedKey: received, ...(cancelledBy ? { cancelledBy } : {}) };
        rows.push({ key: transitionKey(stored.runId, transition, destination, 'announce'), destination, kind: 'announce', payload: message });
      }
      return rows;
    });
  }

  /**
   * The run API does not know the run (404): stop tracking it, keeping its last state, and tell the
   * people waiting for it once — otherwise their status message would claim it is running forever.
   */
  private async forget(pass: Pass, stored: TrackedRun): Promise<void> {
    const transition = stored.transition + 1;
    const text = `The run API no longer knows run ${stored.runId} (last seen ${stored.state}); agent-bridge stopped following it.`;
    const owed: NewOutboxRow[] = stored.destinations.map((destination) => ({
      key: `run:${stored.runId}:${transition}:${destination}:notice`,
      destination,
      kind: 'notice',
      payload: { kind: 'notice', text } satisfies OutboxMessage,
    }));
    const observation = { state: stored.state, serverUpdatedAt: stored.serverUpdatedAt, sessionLink: stored.sessionLink, tracked: false };
    if (await this.store.trackedRuns.recordTransition(stored.runId, stored.transition, observation, owed, pass.now)) {
      this.logger.warn({ runId: stored.runId, state: stored.state }, 'run not found by the run API; no longer tracked');
    }
  }

  private async flushSeen(pass: Pass): Promise<void> {
    if (pass.seen.length === 0) return;
    await this.store.trackedRuns.touch(pass.seen, pass.now);
    pass.seen = [];
  }

  private async loadScan(): Promise<Scan | undefined> {
    const text = await this.store.settings.get(TRACKER_SCAN);
    if (!text) return undefined;
    try {
      const scan = JSON.parse(text) as Scan;
      return typeof scan.updatedAfter === 'string' && typeof scan.startedAt === 'number' ? scan : undefined;
    } catch {
      return undefined;
    }
  }

  /** The settings port has no delete: an empty value means "no traversal in progress". */
  private async saveScan(scan: Scan | undefined): Promise<void> {
    await this.store.settings.set(TRACKER_SCAN, scan === undefined ? '' : JSON.stringify(scan));
  }
}
