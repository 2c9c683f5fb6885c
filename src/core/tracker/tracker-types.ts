/**
 * The tracker's dependencies, options and tick report (its public shape; the logic is `tracker.ts`).
 */
import type { AgentRuns, RunsForOwner } from '../ports/agent-runs.js';
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { CoreMetrics } from '../ports/metrics.js';
import type { SessionPlaces } from '../ports/notifier.js';
import type { Store } from '../ports/store.js';
import type { Surfaces } from '../surfaces.js';
import type { KeyLossPeople } from './key-lost.js';

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
   * crashed one as soon as its process is found dead (core/liveness/liveness.ts). Default max(2 × interval, 30 s).
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
  /**
   * The run API under a person's own key: runs whose `personalKeyOwner` is a person are listed and
   * fetched with it. Absent: every run is watched with the service key (`runs`).
   */
  runsForOwner?: RunsForOwner;
  /**
   * Told when the run API refuses a person's key their runs are watched with: the key is marked
   * refused and each of their runs' places is told once (`key-lost.ts`). Absent: it is only logged.
   */
  people?: KeyLossPeople;
  /** What the runs' places can do (tell the owner privately of a lost key); absent: no surface. */
  surfaces?: Surfaces;
  /** The places that show a run as a live session: each change of a run's session phase is owed there. Absent: none. */
  sessionPlaces?: SessionPlaces;
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
