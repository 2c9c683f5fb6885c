import { AgentApiClient } from './agent-api/index.js';
import { runApiProbe } from './agent-api/readiness-probe.js';
import { consoleIntegration, watchTracker } from './compose/console.js';
import { displayNames } from './compose/display-names.js';
import { serviceRoutes } from './compose/http-routes.js';
import { agentApiEndpoint, linearIntegration, slackIntegration } from './compose/integrations.js';
import { Shutdown } from './compose/shutdown.js';
import { Wake } from './compose/wake.js';
import { personIdentity } from './compose/people.js';
import { composeRunKeys } from './compose/run-keys.js';
import { startWorkLoops } from './compose/work-loops.js';
import { routingTable } from './config/routing-table.js';
import type { AppConfig } from './config/types.js';
import { IntakeService } from './core/intake/intake-service.js';
import { IntakeWorker } from './core/intake/intake-worker.js';
import { Liveness } from './core/liveness/liveness.js';
import { LogNotifier } from './core/outbox/log-notifier.js';
import { OutboxWorker } from './core/outbox/outbox-worker.js';
import { SentResults } from './core/outbox/sent-results.js';
import type { AgentApiError, AgentRuns } from './core/ports/agent-runs.js';
import { systemClock, type Clock } from './core/ports/clock.js';
import type { AccessPolicy } from './core/ports/intake.js';
import type { Logger } from './core/ports/logger.js';
import type { Notifier } from './core/ports/notifier.js';
import { workerOwner, type Store } from './core/ports/store.js';
import { Scheduler } from './core/schedules/scheduler.js';
import { Tracker } from './core/tracker/tracker.js';
import { cronCalendar } from './cron-calendar/cron-calendar.js';
import { isRunningOnThisHost, newProcessIdentity, releaseProcessIdentity } from './host/process-identity.js';
import { createCoreMetrics, createMetrics, type Metrics } from './http/metrics.js';
import { createHttpServer, listen } from './http/server.js';
import { slackAccessPolicy } from './slack/access.js';
import { describeDatabase, openStore } from './store/open-store.js';

export interface ServiceOptions {
  config: AppConfig;
  logger: Logger;
  clock?: Clock;
  /** Seams for tests and embedding: extra notifiers, and a wrapper around the run-API client. */
  overrides?: {
    notifiers?: Notifier[];
    wrapAgentRuns?: (runs: AgentRuns) => AgentRuns;
    access?: AccessPolicy;
    /** Lease lengths (crash tests shorten them so a restarted process takes over quickly). */
    leases?: { intakeMs?: number; outboxMs?: number; trackerMs?: number; scheduleFireMs?: number };
  };
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

/** Deliveries at once: one slow thread does not hold up the others (the store keeps each destination in order). */
const OUTBOX_CONCURRENCY = 16;
/** Triggers worked at once: work keeps pace under a flood of requests (the store keeps each anchor in order). */
export const INTAKE_CONCURRENCY = 16;

/**
 * The composition root: builds every part from the validated config and starts it, in the order of
 * the steps below; `shutdown` stops them in the reverse order. Nothing below reads the environment.
 */
export async function startService(options: ServiceOptions): Promise<RunningService> {
  const { config, logger } = options;
  const clock = options.clock ?? systemClock;
  const leases = options.overrides?.leases;
  const shutdown = new Shutdown(logger);

  try {
    // 1. The database (closed last).
    const store = await openStore(config.database, { onProblem: (error) => logger.warn({ err: error }, 'database connection problem (recovering)') });
    shutdown.add('database', () => store.close());
    const metrics = createMetrics();
    const coreMetrics = createCoreMetrics(metrics.registry, () => store.outbox.counts());
    // The console's health page shows the tracker's last tick.
    const trackerWatch = watchTracker(coreMetrics, clock);

    // 2. The run API: the configured one, or the built-in emulator.
    const api = await agentApiEndpoint(config, logger);
    const emulator = api.emulator;
    if (emulator) shutdown.add('emulator', () => emulator.close());
    // Shared with the clients under people's own keys (step 4).
    const apiHooks = {
      onRequest: ({ call, status }: { call: string; status: number }) => metrics.agentApiRequests.inc({ call, status: String(status) }),
      onRetry: ({ call, attempt, delayMs, error }: { call: string; attempt: number; delayMs: number; error: AgentApiError }) =>
        logger.warn({ call, attempt, delayMs, code: error.code, status: error.status }, 'retrying run API call'),
    };
    const client = new AgentApiClient({ baseUrl: api.baseUrl, apiKey: api.apiKey, ...apiHooks });
    shutdown.add('run API client', () => client.close());
    const agentRuns = options.overrides?.wrapAgentRuns?.(client) ?? client;

    // 3. This process among the replicas: its leases and claims are held by its id (its workers',
    // `<id>/<worker>`), and are free as soon as it stops or stops beating. Registered before any worker
    // starts, so a restart takes over its dead predecessor's work at once.
    const self = newProcessIdentity();
    const liveness = new Liveness({ store, clock, logger: logger.child({ component: 'liveness' }), self, isRunning: isRunningOnThisHost });
    await liveness.start();
    shutdown.add('liveness', async () => {
      await liveness.stop();
      releaseProcessIdentity(self.id);
    });

    // 4. The front door and the edges that hand it requests.
    const stored = new Wake();
    const access = options.overrides?.access ?? slackAccessPolicy(config.slack.allowedUsers);
    // followups: all — a burst of replies within the window goes to the run as one follow-up.
    const followupWindows = {
      slack: config.slack.followups === 'all' ? config.slack.followupWindowMs : 0,
      linear: config.linear.followups === 'all' ? config.linear.followupWindowMs : 0,
    };
    const intake = new IntakeService({ store, clock, access, onStored: stored.fire, followupWindows });
    const slack = await slackIntegration(config, intake, store, logger);
    // Before the database closes; an event stored while the workers stop is worked on the next start.
    if (slack) shutdown.add('slack', () => slack.stop());
    const linear = await linearIntegration(config, intake, store, logger, () => clock.now());
    // Whose key each request runs under (people.attribution); the per-person clients close after the workers stop.
    const identity = personIdentity(store, { ...(slack && { slack }), ...(linear && { linear }) }, clock, logger);
    const runKeys = composeRunKeys(config, { service: agentRuns, baseUrl: api.baseUrl, store, clock, identity, hooks: apiHooks });
    shutdown.add('personal run API clients', () => runKeys.close());

    // 5. The workers of the core.
    const routing = routingTable(config);
    const intakeWorkers = Array.from(
      { length: INTAKE_CONCURRENCY },
      (_, index) =>
        new IntakeWorker({
          store,
          runs: agentRuns,
          clock,
          logger: logger.child({ component: 'intake' }),
          routing,
          owner: workerOwner(self.id, `intake-${index}`),
          options: { retryWindowMs: config.intake.retryWindowMs, ...(leases?.intakeMs && { leaseMs: leases.intakeMs }) },
          metrics: coreMetrics,
          followupWindows,
          enrichers: { ...(slack && { slack: slack.enricher }), ...(linear && { linear: linear.enricher }) },
          ...(linear && config.slack.linkLinearIssues && { issueLinkers: { slack: linear.issueLinker } }),
          access,
          keys: runKeys.keys,
        }),
    );
    const tracker = new Tracker({
      store,
      runs: agentRuns,
      // Runs created with a person's key are watched with that key (the run API may show them only to it).
      runsForOwner: runKeys.forOwner,
      // …and when a person's key is refused, their runs' places are told once and the key is marked.
      people: runKeys.keys,
      clock,
      logger: logger.child({ component: 'tracker' }),
      metrics: trackerWatch.metrics,
      owner: self.id,
      options: { pageSize: config.tracker.pageSize, intervalMs: config.tracker.intervalMs, ...(leases?.trackerMs && { leaseMs: leases.trackerMs }) },
    });
    const scheduler = new Scheduler({
      store,
      intake,
      agentRuns,
      clock,
      owner: self.id,
      ...(leases?.scheduleFireMs && { fireLeaseMs: leases.scheduleFireMs }),
      logger: logger.child({ component: 'scheduler' }),
      schedules: config.schedules.map((schedule) => ({ ...schedule, calendar: cronCalendar(schedule.cron, schedule.timezone) })),
    });
    const notifiers = [
      new LogNotifier(logger.child({ component: 'log-notifier' })),
      ...(slack ? [slack.notifier] : []),
      ...(linear?.notifiers ?? []),
      ...(options.overrides?.notifiers ?? []),
    ];
    // One memory of delivered results for all of them: a status edit is often delivered by another
    // worker than the post whose ts it needs.
    const sentResults = new SentResults();
    const outbox = Array.from(
      { length: OUTBOX_CONCURRENCY },
      (_, index) =>
        new OutboxWorker({
          store,
          notifiers,
          clock,
          logger,
          metrics: coreMetrics,
          sentResults,
          owner: workerOwner(self.id, `outbox-${index}`),
          ...(leases?.outboxMs && { options: { leaseMs: leases.outboxMs } }),
        }),
    );

    // 6. The loops that drive them, woken by what this process stores and by the store's change
    // notifications (PostgreSQL's LISTEN/NOTIFY, see work-loops.ts; polling stays the safety net).
    const loops = startWorkLoops({
      store,
      clock,
      logger,
      intake: intakeWorkers,
      tracker,
      scheduler,
      outbox,
      liveness,
      intervals: { trackerMs: config.tracker.intervalMs, dedupeRetentionMs: config.intake.dedupeRetentionMs },
    });
    stored.connect({ wake: () => loops.wakeIntake() });
    shutdown.add('work loops', () => loops.stop());
    // After the loops, so a fire at start (catch-up, an unfinished fire) is worked at once.
    await scheduler.start();
    shutdown.add('scheduler', () => scheduler.stop());

    // 7. The HTTP server (stopped first: no new requests while the workers finish).
    const probe = runApiProbe(api);
    shutdown.add('readiness probe', () => probe.close());
    const routes = serviceRoutes({
      checks: [
        { name: 'database', check: () => store.ping() },
        { name: 'agent_api', check: () => probe.check() },
      ],
      metrics,
      logger,
      now: () => clock.now(),
      ...(slack && { slack }),
      ...(linear && { linear }),
    });
    const webConsole = consoleIntegration(config, {
      store,
      clock,
      logger: logger.child({ component: 'console' }),
      intake,
      runs: agentRuns,
      triggerSchedule: (name) => scheduler.trigger(name),
      wakeOutbox: () => loops.wakeOutbox(),
      wakeIntake: () => loops.wakeIntake(),
      lastTick: trackerWatch.lastTick,
      ...(slack && { names: displayNames(slack, clock) }),
      ...(slack?.teamId && { workspace: slack.teamId }),
      ...(slack && { keyRemoved: (person: string) => slack.keyRemoved(person) }),
    });
    const http = await listen(createHttpServer({ routes: [...routes, ...webConsole.routes], metrics, logger }), config.http.port, config.http.host);
    shutdown.add('http', () => http.close());

    announceStart(logger, config, http.url);
    webConsole.announce(logger, http.url);
    return { url: http.url, agentApiBaseUrl: api.baseUrl, emulated: emulator !== undefined, store, metrics, intake, stop: shutdown.run };
  } catch (error) {
    await shutdown.run();
    throw error;
  }
}

/** What an operator reads once the service listens. */
function announceStart(logger: Logger, config: AppConfig, url: string): void {
  logger.info({ url, database: describeDatabase(config.database) }, 'agent-bridge is listening');
  if (config.schedules.length > 0) {
    logger.info(
      { schedules: config.schedules.map((schedule) => `${schedule.name} (${schedule.cron} ${schedule.timezone}${schedule.enabled ? '' : ', disabled'})`) },
      'schedules are on',
    );
  }
}
