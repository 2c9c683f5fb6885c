/**
 * Step 5 of the composition root (`main.ts`): the workers of the core — intake, tracker, scheduler and
 * outbox — built from the earlier steps' parts and the registered surfaces.
 */
import type { AppConfig } from '../config/types.js';
import { routingTable } from '../config/routing-table.js';
import { IntakeWorker } from '../core/intake/intake-worker.js';
import { LogNotifier } from '../core/outbox/log-notifier.js';
import { OutboxWorker } from '../core/outbox/outbox-worker.js';
import { SentResults } from '../core/outbox/sent-results.js';
import type { AgentRuns } from '../core/ports/agent-runs.js';
import type { CoreMetrics } from '../core/ports/metrics.js';
import { workerOwner, type Store } from '../core/ports/store.js';
import { Scheduler } from '../core/schedules/scheduler.js';
import type { Surfaces } from '../core/surfaces.js';
import { Tracker } from '../core/tracker/tracker.js';
import { cronCalendar } from '../cron-calendar/cron-calendar.js';
import type { watchTracker } from './console.js';
import type { openFrontDoor } from './front-door.js';
import { registeredSurfaces } from './surfaces.js';
import type { ServiceBase } from './service-base.js';

/** Deliveries at once: one slow thread does not hold up the others (the store keeps each destination in order). */
const OUTBOX_CONCURRENCY = 16;
/** Triggers worked at once: work keeps pace under a flood of requests (the store keeps each anchor in order). */
export const INTAKE_CONCURRENCY = 16;

/** What the workers are built from. */
export interface WorkerParts {
  store: Store;
  agentRuns: AgentRuns;
  coreMetrics: CoreMetrics;
  trackerWatch: ReturnType<typeof watchTracker>;
  /** This process's id (`self.id`): its workers' leases are held under it. */
  owner: string;
  front: Awaited<ReturnType<typeof openFrontDoor>>;
}

/** 5. The workers of the core. */
export function buildCoreWorkers(base: ServiceBase, parts: WorkerParts) {
  const surfaces = registeredSurfaces(base.config);
  return {
    intakeWorkers: intakeWorkers(base, parts, surfaces),
    tracker: tracker(base, parts, surfaces),
    scheduler: scheduler(base, parts, surfaces),
    outbox: outboxWorkers(base, parts),
  };
}

function intakeWorkers({ config, logger, clock, overrides }: ServiceBase, parts: WorkerParts, surfaces: Surfaces): IntakeWorker[] {
  const { store, agentRuns, coreMetrics, front } = parts;
  const started = front.surfaces;
  const routing = routingTable(config);
  const leases = overrides?.leases;
  const sessionPlaces = started.sessionPlaces();
  return Array.from(
    { length: INTAKE_CONCURRENCY },
    (_, index) =>
      new IntakeWorker({
        store,
        runs: agentRuns,
        clock,
        logger: logger.child({ component: 'intake' }),
        routing,
        owner: workerOwner(parts.owner, `intake-${index}`),
        options: { retryWindowMs: config.intake.retryWindowMs, ...(leases?.intakeMs && { leaseMs: leases.intakeMs }) },
        metrics: coreMetrics,
        followupWindows: front.followupWindows,
        surfaces,
        enrichers: started.enrichers(),
        // A message naming an issue of a tracker that is on and linked (a chat's link_*_issues).
        issueLinkers: started.issueLinkers(),
        access: front.access,
        // Where only the platform can say who may act: a repository's write access, an issue tracker's permissions or roles.
        requesterChecks: started.requesterChecks(),
        keys: front.runKeys.keys,
        limits: config.limits,
        // A run shown in a chat thread may be an agent session there (its phase owed at each change).
        ...(sessionPlaces && { sessionPlaces }),
      }),
  );
}

function tracker({ config, logger, clock, overrides }: ServiceBase, parts: WorkerParts, surfaces: Surfaces): Tracker {
  const { runKeys, surfaces: started } = parts.front;
  const sessionPlaces = started.sessionPlaces();
  const leases = overrides?.leases;
  return new Tracker({
    store: parts.store,
    runs: parts.agentRuns,
    // Runs created with a person's key are watched with that key (the run API may show them only to it).
    runsForOwner: runKeys.forOwner,
    // …and when a person's key is refused, their runs' places are told once and the key is marked.
    people: runKeys.keys,
    surfaces,
    clock,
    logger,
    metrics: parts.trackerWatch.metrics,
    ...(sessionPlaces && { sessionPlaces }),
    owner: parts.owner,
    options: { pageSize: config.tracker.pageSize, intervalMs: config.tracker.intervalMs, ...(leases?.trackerMs && { leaseMs: leases.trackerMs }) },
  });
}

function scheduler({ config, logger, clock, overrides }: ServiceBase, parts: WorkerParts, surfaces: Surfaces): Scheduler {
  const leases = overrides?.leases;
  return new Scheduler({
    store: parts.store,
    intake: parts.front.intake,
    agentRuns: parts.agentRuns,
    clock,
    owner: parts.owner,
    ...(leases?.scheduleFireMs && { fireLeaseMs: leases.scheduleFireMs }),
    logger: logger.child({ component: 'scheduler' }),
    surfaces,
    schedules: schedulesOf(config),
  });
}

/** The configured schedules with their calendars. */
function schedulesOf(config: AppConfig) {
  return config.schedules.map((schedule) => ({ ...schedule, calendar: cronCalendar(schedule.cron, schedule.timezone) }));
}

function outboxWorkers({ logger, clock, overrides }: ServiceBase, parts: WorkerParts): OutboxWorker[] {
  const notifiers = [new LogNotifier(logger.child({ component: 'log-notifier' })), ...parts.front.surfaces.notifiers(), ...(overrides?.notifiers ?? [])];
  // One memory of delivered results for all of them: a status edit is often delivered by another
  // worker than the post whose ts it needs.
  const sentResults = new SentResults();
  return Array.from(
    { length: OUTBOX_CONCURRENCY },
    (_, index) =>
      new OutboxWorker({
        store: parts.store,
        notifiers,
        clock,
        logger,
        metrics: parts.coreMetrics,
        sentResults,
        owner: workerOwner(parts.owner, `outbox-${index}`),
        ...(overrides?.leases?.outboxMs && { options: { leaseMs: overrides.leases.outboxMs } }),
      }),
  );
}
