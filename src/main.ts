import { buildCoreWorkers } from './compose/core-workers.js';
import { openFrontDoor } from './compose/front-door.js';
import { connectRunApi, joinReplicas, openDatabase, type ServiceBase, type ServiceOverrides } from './compose/service-base.js';
import { serveHttp } from './compose/service-http.js';
import { Shutdown } from './compose/shutdown.js';
import { startWorkLoops } from './compose/work-loops.js';
import type { AppConfig } from './config/types.js';
import { formatProblem } from './config/problems.js';
import type { IntakeService } from './core/intake/intake-service.js';
import { systemClock, type Clock } from './core/ports/clock.js';
import type { Logger } from './core/ports/logger.js';
import type { Store } from './core/ports/store.js';
import { AckFirst } from './http/ack-first.js';
import { RequestTurns } from './http/request-turns.js';
import type { Metrics } from './http/metrics.js';
import { describeDatabase } from './store/open-store.js';

export interface ServiceOptions {
  config: AppConfig;
  logger: Logger;
  clock?: Clock;
  /** Seams for tests and embedding: extra notifiers, and a wrapper around the run-API client. */
  overrides?: ServiceOverrides;
}

export interface RunningService {
  /** Where the HTTP server listens, e.g. `http://0.0.0.0:3000`. */
  url: string;
  /** The run API in use (the built-in emulator's when `emulated`). */
  agentApiBaseUrl: string;
  emulated: boolean;
  store: Store;
  metrics: Metrics;
  /** The core's front door: edges submit triggers here. */
  intake: IntakeService;
  /** Graceful stop: no new requests, in-flight work finished, then the database closed. */
  stop(): Promise<void>;
}

export { INTAKE_CONCURRENCY } from './compose/core-workers.js';

/**
 * The composition root: builds every part from the validated config and starts it, in the order of
 * the steps below; `shutdown` stops them in the reverse order. Nothing below reads the environment.
 */
export async function startService(options: ServiceOptions): Promise<RunningService> {
  const { config, logger } = options;
  const clock = options.clock ?? systemClock;
  const shutdown = new Shutdown(logger);
  const base: ServiceBase = { config, logger, clock, shutdown, overrides: options.overrides };

  try {
    // Requests' handlers start one a turn (step 7); a batch of triggers they store is committed once
    // the requests already waiting have started, so a burst shares one commit.
    const turns = new RequestTurns();
    // 1. The database (closed last). 2. The run API. 3. This process among the replicas.
    const { store, metrics, coreMetrics, trackerWatch } = await openDatabase(base, (commit) => turns.enqueue(commit));
    const { api, emulated, apiHooks, agentRuns } = await connectRunApi(base, metrics);
    const { self, liveness } = await joinReplicas(base, store);

    // 4. The front door and the edges that hand it requests.
    const front = await openFrontDoor(base, { store, agentRuns, baseUrl: api.baseUrl, apiHooks });
    const { intake, stored, owed, freeWorkers } = front;

    // 5. The workers of the core.
    const workers = buildCoreWorkers(base, { store, agentRuns, coreMetrics, trackerWatch, owner: self.id, front });
    const { scheduler } = workers;

    // Acknowledgements first: webhooks' requests hold the background passes (bounded) while in flight.
    const ackFirst = new AckFirst(clock);
    // 6. The loops that drive them, woken by what this process stores and by the store's change
    // notifications (PostgreSQL's LISTEN/NOTIFY, see work-loops.ts; polling stays the safety net).
    const loops = startWorkLoops({
      store,
      clock,
      logger,
      intake: workers.intakeWorkers,
      tracker: workers.tracker,
      scheduler,
      outbox: workers.outbox,
      liveness,
      approvals: front.approvals,
      intervals: { trackerMs: config.tracker.intervalMs, dedupeRetentionMs: config.intake.dedupeRetentionMs, auditRetentionMs: config.audit.retentionMs },
      gate: ackFirst,
    });
    stored.connect({ wake: () => loops.wakeIntake() });
    owed.connect({ wake: () => loops.wakeOutbox() });
    freeWorkers.connect(loops.freeWorkers);
    shutdown.add('work loops', () => loops.stop());
    // After the loops, so a fire at start (catch-up, an unfinished fire) is worked at once.
    await scheduler.start();
    shutdown.add('scheduler', () => scheduler.stop());

    // 7. The HTTP server (stopped first: no new requests while the workers finish).
    const http = await serveHttp(base, { store, metrics, api, agentRuns, front, scheduler, loops, lastTick: trackerWatch.lastTick, ackFirst, turns });

    announceStart(logger, config, http.url);
    http.webConsole.announce(logger, http.url);
    return { url: http.url, agentApiBaseUrl: api.baseUrl, emulated, store, metrics, intake, stop: shutdown.run };
  } catch (error) {
    await shutdown.run();
    throw error;
  }
}

/** What an operator reads once the service listens. */
function announceStart(logger: Logger, config: AppConfig, url: string): void {
  logger.info({ url, database: describeDatabase(config.database) }, 'agent-bridge is listening');
  // Valid but unable to do what it seems meant to (e.g. GitHub on with no repository): said loudly, every start.
  for (const warning of config.warnings ?? []) logger.warn({ where: warning.where }, `config warning: ${formatProblem(warning)}`);
  if (config.schedules.length > 0) {
    logger.info(
      { schedules: config.schedules.map((schedule) => `${schedule.name} (${schedule.cron} ${schedule.timezone}${schedule.enabled ? '' : ', disabled'})`) },
      'schedules are on',
    );
  }
}
