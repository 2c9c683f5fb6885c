/**
 * The tracker: notices state changes of the runs we track and turns each one into outbox rows.
 *
 * Cost is what matters at scale: one tick lists only the runs the server changed since the
 * watermark (`updated_after`), so 10,000 quiet runs cost one list page, not 10,000 requests. The
 * watermark is the largest `updated_at` on a traversal's first page (minus a margin for races), never
 * our clock. A bounded number of per-run GETs per tick covers what a list cannot show: runs in states
 * we do not know, and runs we have never observed or not for too long.
 *
 * Runs under people's own keys: the run API may show a run only to the key that created
 * it, so a tick lists once per key that has runs still tracked — the service key's list, plus one per
 * person (`RunsForOwner`), each with its own watermark — and fetches a run with its creator's key. A
 * tick costs at most 1 + (people with tracked runs) + ⌈changed / page size⌉ list requests, plus the
 * bounded GETs; a person whose key is refused costs one request per tick, never one per run.
 *
 * Exactly once: every transition is recorded with a compare-and-set on the run's transition number,
 * together with its outbox rows, so two processes (or a tick that outlived its lease) cannot announce
 * one transition twice; the one that lost compares its answer again with what the other stored, which
 * may be older. The `tracker` lease makes one process tick at a time, renewed while a tick lasts; a
 * tick that loses it anyway (its renewals late on a busy machine) stops at its next step.
 */
import {
  KNOWN_RUN_STATES,
  isAgentApiError,
  isTerminalState,
  type AgentApiError,
  type AgentApiErrorKind,
  type AgentRuns,
  type RunItem,
  type RunPage,
} from '../ports/agent-runs.js';
import type { Logger } from '../ports/logger.js';
import { announceOf, isAnnounced } from './route-policy.js';
import type { MeteredRun, NewOutboxRow, RunObservation, Store, TrackedRun } from '../ports/store.js';
import { ATTR, SPAN } from '../ports/trace-names.js';
import { tracing } from '../ports/tracing.js';
import {
  TRACKER_LISTED_AT,
  TRACKER_SCAN,
  TRACKER_WATERMARK,
  cancelledBySetting,
  trackerOwnerScanSetting,
  trackerOwnerWatermarkSetting,
} from '../ports/setting-names.js';
import { forgottenRows, transitionRows } from './owed-rows.js';
import { withArtifactPlaces } from './artifact-places.js';
import { endedSessionRows, observedSessionRows } from '../session-rows.js';
import { OwnerKeys, isKeyRefused } from './owner-keys.js';
import { tellKeyLost } from './key-lost.js';
import { Surfaces } from '../surfaces.js';
import { renewLease } from '../lease-renewal.js';
import { earlier, earliestObservation, instant, isLater, later } from './server-time.js';
import { loadScan, saveScan, type Scan } from './list-scan.js';
import { reportedUsage, usageChanged } from './run-usage.js';
import type { TickReport, TrackerDeps } from './tracker-types.js';

/** Name of the lease one process holds while it ticks. */
export const TRACKER_LEASE = 'tracker';

export type { TickReport, TrackerDeps, TrackerOptions } from './tracker-types.js';

/**
 * One tick: `gets` left of the budget, runs `observed` (not fetched again), runs `seen` unchanged
 * (touched together), runs `metered` whose usage alone changed (recorded together); `outage` once the
 * run API as a whole failed a list (no more keys are listed).
 */
interface Pass {
  now: number;
  requests: number;
  changed: number;
  gets: number;
  observed: Set<string>;
  seen: string[];
  metered: MeteredRun[];
  outage: boolean;
  /** Another tracker holds the lease now: this tick observes and moves nothing more. */
  leaseLost: boolean;
}

/** One key's list: the service key (`person` absent) or a person's own key, with its watermark and scan. */
interface ListScope {
  person?: string;
  runs: AgentRuns;
  watermarkKey: string;
  scanKey: string;
}

/** Errors that mean the run API as a whole is unavailable: further GETs this tick would fail too. */
const OUTAGE: ReadonlySet<AgentApiErrorKind> = new Set(['authentication', 'permission', 'rate_limited', 'server', 'connection', 'timeout']);
/** List failures after which listing further keys this tick would only add load (a refused key is that key's own). */
const LIST_OUTAGE: ReadonlySet<AgentApiErrorKind> = new Set(['rate_limited', 'server', 'connection', 'timeout']);
/** `listStale` threshold that selects only runs never observed (lastSeenAt null). */
const NEVER_SEEN = Number.MIN_SAFE_INTEGER;
/** How many times one answer is compared again with a run another tracker changed meanwhile (`observe`). */
const RACE_RETRIES = 2;
/** With per-person keys, GET candidates are read with this much margin: those of a key unusable this tick are skipped for free. */
const CANDIDATE_MARGIN = 4;

/** Watches tracked runs; call `tick()` every `intervalMs` (e.g. through `startLoop`). */
export class Tracker {
  private readonly store: Store;
  private readonly keys: OwnerKeys;
  private readonly service: ListScope;
  private readonly logger: Logger;
  private readonly limits: { leaseMs: number; marginMs: number; maxPages: number; maxGets: number; staleAfterMs: number };

  constructor(private readonly deps: TrackerDeps) {
    const { options } = deps;
    this.store = deps.store;
    this.logger = deps.logger.child({ component: 'tracker' });
    this.keys = new OwnerKeys(deps.runs, deps.runsForOwner, this.logger);
    this.service = { runs: deps.runs, watermarkKey: TRACKER_WATERMARK, scanKey: TRACKER_SCAN };
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
    const pass: Pass = { now, requests: 0, changed: 0, gets: this.limits.maxGets, observed: new Set(), seen: [], metered: [], outage: false, leaseLost: false };
    // A tick keeps its lease while it lasts: on a busy machine a tick outlived a short lease and up
    // to three trackers read and recorded the same runs side by side, each slowing the others.
    const stopRenewing = this.keepLease(pass);
    try {
      this.keys.startTick();
      if ((await this.store.trackedRuns.countTracked()) > 0) {
        const watermark = await this.store.settings.get(TRACKER_WATERMARK);
        if (instant(watermark) !== undefined) await this.listPhase(pass, this.service, watermark);
        else await this.bootstrap(pass);
        if (this.keys.perKey) await this.peopleLists(pass);
        await this.getPhase(pass);
      }
    } finally {
      stopRenewing();
    }
    const report = { ran: true, requests: pass.requests, changed: pass.changed, tracked: await this.store.trackedRuns.countTracked() };
    this.deps.metrics?.trackerTick({ requests: report.requests, changed: report.changed, tracked: report.tracked });
    return report;
  }

  /** Renews the tracker lease while the tick lasts; once another holds it, the tick stops at its next step. */
  private keepLease(pass: Pass): () => void {
    return renewLease(this.deps.clock, this.limits.leaseMs, {
      extend: () => this.store.leases.acquire(TRACKER_LEASE, this.deps.owner, this.deps.clock.now(), this.limits.leaseMs),
      lost: () => {
        pass.leaseLost = true;
        this.logger.warn({ owner: this.deps.owner }, 'lost the tracker lease during a tick; the tick stops');
      },
      failed: (error) => {
        this.logger.warn({ err: error }, 'could not renew the tracker lease');
        return true;
      },
    });
  }

  /** Gives the lease up (at shutdown), so another process takes over without waiting it out. */
  async release(): Promise<void> {
    await this.store.leases.release(TRACKER_LEASE, this.deps.owner);
  }

  /**
   * One list per person with runs still tracked, each with that person's key and watermark. A person
   * whose key cannot be used is skipped (OwnerKeys says so once); an outage of the run API stops here.
   */
  private async peopleLists(pass: Pass): Promise<void> {
    for (const person of await this.store.trackedRuns.listActiveKeyOwners()) {
      if (pass.outage || pass.leaseLost) return;
      const runs = await this.keys.runsFor(person);
      if (!runs) continue;
      const scope: ListScope = { person, runs, watermarkKey: trackerOwnerWatermarkSetting(person), scanKey: trackerOwnerScanSetting(person) };
      await this.listPhase(pass, scope, await this.store.settings.get(scope.watermarkKey));
    }
  }

  /**
   * Lists runs updated after watermark − margin, newest first, page by page. A traversal longer than
   * `maxPagesPerTick` resumes from its cursor next tick. A traversal's watermark is the largest
   * `updated_at` of its FIRST page: a run changed after that page was read, on a page already passed,
   * has a later `updated_at` and is listed by the next traversal. A later page's newest `updated_at`
   * may be later than such a change (pages are read one after the other, each page's runs observed in
   * between, which on a busy machine can outlast the margin), so it does not count. A person's key
   * without a watermark yet lists all its runs once (newest first), which sets it.
   */
  private async listPhase(pass: Pass, scope: ListScope, watermark: string | undefined): Promise<void> {
    const saved = await loadScan(this.store.settings, scope.scanKey, scope.person !== undefined);
    const resumed = saved !== undefined;
    const from = instant(watermark);
    const scan: Scan = saved ?? {
      updatedAfter: from === undefined ? null : new Date(from - this.limits.marginMs).toISOString(),
      cursor: null,
      top: null,
      startedAt: pass.now,
    };
    for (let pages = 0; pages < this.limits.maxPages; pages++) {
      if (pass.leaseLost) return;
      let page: RunPage;
      try {
        pass.requests++;
        const cursor = scan.cursor === null ? {} : { cursor: scan.cursor };
        const since = scan.updatedAfter === null ? {} : { updated_after: scan.updatedAfter };
        page = await scope.runs.listRuns({ ...since, limit: this.deps.options.pageSize, ...cursor });
      } catch (error) {
        if (!isAgentApiError(error)) throw error;
        if (scope.person !== undefined && isKeyRefused(error)) await this.keyRefused(pass, scope.person, error);
        else this.logger.warn({ person: scope.person, code: error.code, status: error.status, err: error }, 'listing changed runs failed; watermark unchanged');
        if (LIST_OUTAGE.has(error.kind)) pass.outage = true;
        // A cursor the server rejects cannot be resumed: the next tick starts over from the watermark.
        // Otherwise it resumes from the last page that was processed.
        if (scan.cursor !== null) await saveScan(this.store.settings, scope.scanKey, error.kind === 'bad_request' ? undefined : scan);
        return;
      }
      if (scope.person !== undefined) this.keys.worked(scope.person);
      const firstPage = !resumed && pages === 0;
      // One read for the page, not one per run: on PostgreSQL each is a round trip.
      const known = new Map((await this.store.trackedRuns.getMany(page.runs.map((item) => item.run_id))).map((run) => [run.runId, run]));
      for (const item of page.runs) {
        if (firstPage) scan.top = later(scan.top, item.updated_at);
        const stored = known.get(item.run_id);
        if (stored?.tracked) await this.observe(pass, stored, item);
      }
      await this.flushSeen(pass);
      const next = page.page_info.next_cursor;
      if (!page.page_info.has_next_page || !next) {
        if (scan.top !== null && (from === undefined || isLater(scan.top, watermark))) await this.store.settings.set(scope.watermarkKey, scan.top);
        // The service key's complete list vouches for observed runs (getPhase); a person's list only for theirs, which it observed.
        if (scope.person === undefined) await this.store.settings.set(TRACKER_LISTED_AT, String(scan.startedAt));
        if (resumed) await saveScan(this.store.settings, scope.scanKey, undefined);
        return;
      }
      scan.cursor = next;
    }
    this.logger.info({ person: scope.person, pages: this.limits.maxPages }, 'many runs changed; the list continues next tick');
    await saveScan(this.store.settings, scope.scanKey, scan);
  }

  /**
   * Fresh database: no watermark yet, so fetch tracked runs one by one (not the whole list), then
   * start the watermark no later than any of them was observed. Reads one by one are no snapshot: a
   * run read first may change before the last is read, so the newest `updated_at` read would put the
   * watermark past that change (as a list's first page cannot). Every run's `updated_at` was current
   * when it was observed, so the earliest of them — those read now and those observed before, by a
   * tracker that died or ticked beside this one — is a server time no observation came before.
   */
  private async bootstrap(pass: Pass): Promise<void> {
    let start: string | null = null;
    for (const stored of await this.store.trackedRuns.listStale(pass.now + 1, this.candidates(pass))) {
      if (pass.leaseLost) return;
      const item = await this.fetch(pass, stored);
      if (item === 'stop') break;
      start = earlier(start, item?.updated_at);
    }
    await this.flushSeen(pass);
    if (start === null) return;
    await this.store.settings.set(TRACKER_WATERMARK, await earliestObservation(this.store.trackedRuns, start));
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
      ...(await this.store.trackedRuns.listTrackedNotInStates(KNOWN_RUN_STATES, this.candidates(pass))),
      ...(await this.store.trackedRuns.listStale(seenBefore, this.candidates(pass))),
    ];
    for (const stored of candidates) {
      if (pass.gets <= 0 || pass.leaseLost) break;
      if (pass.observed.has(stored.runId)) continue;
      if ((await this.fetch(pass, stored)) === 'stop') break;
    }
    await this.flushSeen(pass);
  }

  /** How many GET candidates to read: the budget, with a margin when some may belong to a key unusable this tick. */
  private candidates(pass: Pass): number {
    return this.keys.perKey ? pass.gets * CANDIDATE_MARGIN : pass.gets;
  }

  /**
   * GETs one run with its creator's key and observes it. Undefined when it failed for this run (or
   * its key) only, or its key cannot be used this tick (no request then); 'stop' on an outage.
   */
  private async fetch(pass: Pass, stored: TrackedRun): Promise<RunItem | undefined | 'stop'> {
    const runs = await this.keys.runsFor(stored.personalKeyOwner);
    if (!runs) return undefined;
    pass.gets--;
    pass.requests++;
    pass.observed.add(stored.runId);
    let item: RunItem;
    try {
      item = await runs.getRun(stored.runId);
    } catch (error) {
      if (!isAgentApiError(error)) throw error;
      if (error.kind === 'not_found') {
        await this.forget(pass, stored);
        return undefined;
      }
      if (stored.personalKeyOwner !== undefined && this.keys.perKey && isKeyRefused(error)) {
        await this.keyRefused(pass, stored.personalKeyOwner, error);
        return undefined;
      }
      this.logger.warn({ runId: stored.runId, code: error.code, status: error.status, err: error }, 'fetching a tracked run failed');
      return OUTAGE.has(error.kind) ? 'stop' : undefined;
    }
    if (stored.personalKeyOwner !== undefined && this.keys.perKey) this.keys.worked(stored.personalKeyOwner);
    await this.observe(pass, stored, item);
    return item;
  }

  /** A person's key was refused: left out for the tick; the first time, their runs' places are told (`key-lost.ts`). */
  private async keyRefused(pass: Pass, person: string, error: AgentApiError): Promise<void> {
    if (this.keys.refused(person, error) && this.deps.people)
      await tellKeyLost(
        this.store,
        this.deps.people,
        this.deps.surfaces ?? Surfaces.none,
        { personId: person, status: error.status, now: pass.now },
        this.logger,
      );
  }

  /**
   * Compares what the API reports with the stored observation; records a transition or marks it seen.
   * `retries`: how many times a transition another tracker recorded first is looked at again.
   */
  private async observe(pass: Pass, observed: TrackedRun, reported: RunItem, retries = RACE_RETRIES): Promise<void> {
    pass.observed.add(observed.runId);
    // An answer older than what is stored (another process saw a later one) must not undo it.
    if (isLater(observed.serverUpdatedAt, reported.updated_at)) return;
    const surfaces = this.deps.surfaces;
    const stored = surfaces ? await withArtifactPlaces(observed, reported, { store: this.store, surfaces, logger: this.logger, now: pass.now }) : observed;
    // A list may omit the link; absence is no news, so it never clears a link we know.
    const sessionLink = reported.session_link || stored.sessionLink;
    const stateChanged = reported.state !== stored.state;
    // Tracked although ended: a follow-up revived it. Ended again with a later updated_at is a new
    // ending (the states in between may have passed between two ticks) and is announced again.
    const endedAgain = !stateChanged && stored.tracked && isTerminalState(stored.state) && isLater(reported.updated_at, stored.serverUpdatedAt);
    const usage = reportedUsage(reported);
    if (!stateChanged && !endedAgain && sessionLink === stored.sessionLink) {
      // Usage grows while nothing else changes: kept with the run, one statement per page.
      if (usage && usageChanged(stored.usage, usage)) pass.metered.push({ runId: stored.runId, usage });
      else pass.seen.push(stored.runId);
      return;
    }
    const announce = (stateChanged || endedAgain) && isAnnounced(announceOf(stored.route), reported.state);
    // Who pressed Cancel is known to the intake worker only, which leaves it in a setting.
    const cancelledBy = announce && reported.state === 'CANCELLED' ? await this.store.settings.get(cancelledBySetting(stored.runId)) : undefined;
    // The session first: a working indicator and its stop control appear (or go) before the messages.
    const owed = [
      ...observedSessionRows(stored, reported.state, endedAgain, this.deps.sessionPlaces),
      ...transitionRows(stored, reported, { sessionLink, announce, cancelledBy }, this.deps.surfaces ?? Surfaces.none),
    ];
    const observation = {
      state: reported.state,
      serverUpdatedAt: later(stored.serverUpdatedAt, reported.updated_at),
      sessionLink,
      tracked: !isTerminalState(reported.state),
      ...(usage && { usage }),
    };
    if (await this.recordChange(stored, reported.state, observation, owed, pass.now)) {
      pass.changed++;
      this.logger.info({ runId: stored.runId, from: stored.state, to: reported.state, transition: stored.transition + 1 }, 'run state changed');
      return;
    }
    // Another tracker recorded a transition since the run was read (a tick that outlived its lease).
    // What it saw may be older than this answer, and the watermark may move past this answer, so that
    // no later list shows it again: compared once more with what is stored now.
    const current = retries > 0 ? await this.store.trackedRuns.get(stored.runId) : undefined;
    if (current?.tracked) await this.observe(pass, current, reported, retries - 1);
    else this.logger.debug({ runId: stored.runId }, 'transition already recorded by another process');
  }

  /**
   * Records an observed change with what it owes. Tracing on, inside a span of its own linked to the
   * run's trace, and what it owes carries the run's trace, so each delivery about the run links to it.
   */
  private recordChange(stored: TrackedRun, state: string, observation: RunObservation, owed: NewOutboxRow[], now: number): Promise<boolean> {
    const traces = tracing();
    if (!traces.on) return this.store.trackedRuns.recordTransition(stored.runId, stored.transition, observation, owed, now);
    const attributes = { [ATTR.runId]: stored.runId, [ATTR.genAiConversation]: stored.runId, [ATTR.runState]: state, [ATTR.transition]: stored.transition + 1 };
    return traces.inSpan(SPAN.stateChange, { root: true, links: [stored.traceparent], attributes }, (span) => {
      const traceparent = stored.traceparent ?? span.traceparent;
      const traced = owed.map((row) => ({ ...row, traceparent: row.traceparent ?? traceparent }));
      return this.store.trackedRuns.recordTransition(stored.runId, stored.transition, observation, traced, now);
    });
  }

  /**
   * The run API does not know the run (404): stop tracking it, keeping its last state, and tell the
   * people waiting for it once — otherwise their status message would claim it is running forever.
   */
  private async forget(pass: Pass, stored: TrackedRun): Promise<void> {
    // Its sessions stop showing it as working or waiting: nothing will change them again.
    const owed = [...endedSessionRows(stored, this.deps.sessionPlaces), ...forgottenRows(stored)];
    const observation = { state: stored.state, serverUpdatedAt: stored.serverUpdatedAt, sessionLink: stored.sessionLink, tracked: false };
    if (await this.store.trackedRuns.recordTransition(stored.runId, stored.transition, observation, owed, pass.now)) {
      this.logger.warn({ runId: stored.runId, state: stored.state }, 'run not found by the run API; no longer tracked');
    }
  }

  private async flushSeen(pass: Pass): Promise<void> {
    if (pass.metered.length > 0) {
      await this.store.trackedRuns.recordUsage(pass.metered, pass.now);
      pass.metered = [];
    }
    if (pass.seen.length === 0) return;
    await this.store.trackedRuns.touch(pass.seen, pass.now);
    pass.seen = [];
  }
}
