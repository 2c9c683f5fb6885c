import { AgentApiClient } from './agent-api/index.js';
import { runApiProbe } from './agent-api/readiness-probe.js';
import { routingTable } from './config/routing-table.js';
import type { AppConfig } from './config/types.js';
import type { AgentRuns } from './core/ports/agent-runs.js';
import { systemClock, type Clock } from './core/ports/clock.js';
import { IntakeWorker } from './core/intake/intake-worker.js';
import { Liveness } from './core/liveness/liveness.js';
import type { AccessPolicy } from './core/ports/intake.js';
import { LogNotifier } from './core/outbox/log-notifier.js';
import type { Logger } from './core/ports/logger.js';
import { startLoop, type RunningLoop } from './core/loop.js';
import type { Notifier } from './core/ports/notifier.js';
import { OutboxWorker } from './core/outbox/outbox-worker.js';
import { IntakeService } from './core/intake/intake-service.js';
import { Scheduler } from './core/schedules/scheduler.js';
import { workerOwner, type Store } from './core/ports/store.js';
import { Tracker } from './core/tracker/tracker.js';
import { healthRoutes, notConfiguredRoute, type ReadinessCheck } from './http/health-routes.js';
import { createCoreMetrics, createMetrics, type Metrics } from './http/metrics.js';
import { createHttpServer, listen, type HttpRoute } from './http/server.js';
import { cronCalendar } from './cron-calendar/cron-calendar.js';
import { agentApiEndpoint, linearIntegration, slackIntegration } from './integrations.js';
import { isRunningOnThisHost, newProcessIdentity, releaseProcessIdentity } from './host/process-identity.js';
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

const OUTBOX_CONCURRENCY = 16;
const HOUR = 3_600_000;
/** How long a stopped or dead process stays listed in the database (diagnostics). */
const PROCESS_RETENTION_MS = 7 * 24 * HOUR;

/**
 * The composition root: builds every part from the validated config and starts it. Nothing below
 * reads the environment; everything gets what it needs from here.
 */
export async function startService(options: ServiceOptions): Promise<RunningService> {
  const { config, logger } = options;
  const clock = options.clock ?? systemClock;
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) {
      try {
        await stop();
      } catch (error) {
        logger.error({ err: error }, 'error while stopping');
      }
    }
  };

  try {
    const store = await openStore(config.database, { onProblem: (error) => logger.warn({ err: error }, 'database connection problem (recovering)') });
    stops.push(() => store.close());
    const metrics = createMetrics();
    const coreMetrics = createCoreMetrics(metrics.registry, () => store.outbox.counts());

    const api = await agentApiEndpoint(config, logger);
    if (api.emulator) stops.push(() => api.emulator!.close());
    const client = new AgentApiClient({
      baseUrl: api.baseUrl,
      apiKey: api.apiKey,
      onRequest: ({ call, status }) => metrics.agentApiRequests.inc({ call, status: String(status) }),
      onRetry: ({ call, attempt, delayMs, error }) => logger.warn({ call, attempt, delayMs, code: error.code, status: error.status }, 'retrying run API call'),
    });
    stops.push(() => client.close());
    const agentRuns = options.overrides?.wrapAgentRuns?.(client) ?? client;

    // One owner per process: leases and claims are held by it (or by its workers, `<owner>/<worker>`),
    // never shared between processes; what it holds is free as soon as it stops or stops beating.
    const leases = options.overrides?.leases;
    const self = newProcessIdentity();
    const owner = self.id;
    const liveness = new Liveness({ store, clock, logger: logger.child({ component: 'liveness' }), self, isRunning: isRunningOnThisHost });
    // Before any worker starts: a restart takes over its dead predecessor's work at once.
    await liveness.start();
    stops.push(async () => {
      await liveness.stop();
      releaseProcessIdentity(self.id);
    });
    let wakeWorkers = () => {};
    let access: AccessPolicy | undefined = options.overrides?.access;
    const intakeService = new IntakeService({ store, clock, onStored: () => wakeWorkers(), access: { deny: (trigger) => access?.deny(trigger) } });
    const slack = await slackIntegration(config, intakeService, store, logger);
    // Before the database closes; an event stored while the workers stop is worked on the next start.
    if (slack) stops.push(() => slack.stop());
    access ??= slack?.access;
    const linear = await linearIntegration(config, intakeService, store, logger, () => clock.now());

    const intake = new IntakeWorker({
      store,
      runs: agentRuns,
      clock,
      logger: logger.child({ component: 'intake' }),
      routing: routingTable(config),
      owner,
      options: { retryWindowMs: config.intake.retryWindowMs, ...(leases?.intakeMs && { leaseMs: leases.intakeMs }) },
      metrics: coreMetrics,
      enrichers: { ...(slack && { slack: slack.enricher }), ...(linear && { linear: linear.enricher }) },
      ...(access && { access }),
    });
    const tracker = new Tracker({
      store,
      runs: agentRuns,
      clock,
      logger: logger.child({ component: 'tracker' }),
      metrics: coreMetrics,
      owner,
      options: { pageSize: config.tracker.pageSize, intervalMs: config.tracker.intervalMs, ...(leases?.trackerMs && { leaseMs: leases.trackerMs }) },
    });
    const scheduler = new Scheduler({
      store,
      intake: intakeService,
      agentRuns,
      clock,
      owner,
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
    // Several deliveries at once, so one slow thread does not hold up the others; the store's claim
    // still keeps each destination's messages in order, one at a time.
    const outboxWorkers = Array.from(
      { length: OUTBOX_CONCURRENCY },
      (_, index) =>
        new OutboxWorker({
          store,
          notifiers,
          clock,
          logger,
          metrics: coreMetrics,
          owner: workerOwner(owner, `outbox-${index}`),
          ...(leases?.outboxMs && { options: { leaseMs: leases.outboxMs } }),
        }),
    );

    const loops: RunningLoop[] = [];
    // A wake starts one outbox loop; a loop that claims a row wakes the next before delivering it, so
    // as many deliver at once as there are rows owed (up to 16), and an empty outbox costs one claim.
    const outboxLoops: RunningLoop[] = outboxWorkers.map((worker, index) =>
      startLoop({
        name: `outbox-${index}`,
        clock,
        logger,
        idleMs: 500,
        work: () => worker.deliverOnce(() => outboxLoops[(index + 1) % outboxLoops.length]?.wake()),
      }),
    );
    const outboxLoop = { wake: () => outboxLoops[0]?.wake() };
    const intakeLoop = startLoop({
      name: 'intake',
      clock,
      logger,
      idleMs: 1_000,
      work: async () => {
        const worked = await intake.workOnce();
        if (worked) outboxLoop.wake();
        return worked;
      },
    });
    // Work that runs once per interval whatever it finds (it never asks to go again at once).
    const every = (name: string, idleMs: number, tick: () => Promise<void>) => startLoop({ name, clock, logger, idleMs, work: () => tick().then(() => false) });
    const trackerLoop = every('tracker', config.tracker.intervalMs, async () => {
      const report = await tracker.tick();
      if (report.changed > 0) outboxLoop.wake();
    });
    const housekeeping = every('housekeeping', HOUR, async () => {
      const pruned = await store.eventKeys.prune(clock.now() - config.intake.dedupeRetentionMs);
      if (pruned > 0) logger.info({ pruned }, 'pruned processed event keys');
      await store.processes.prune(clock.now() - PROCESS_RETENTION_MS);
    });
    // Catches fires whose process died mid-way and says a pause soon after the failure that caused it.
    const scheduleUpkeep = every('schedules', config.tracker.intervalMs, () => scheduler.check());
    loops.push(intakeLoop, trackerLoop, ...outboxLoops, housekeeping, scheduleUpkeep);
    // A process found dead left work that is free now: go for it rather than wait for the next pass.
    const livenessLoop = every('liveness', liveness.beatMs, async () => {
      if ((await liveness.beat()).length === 0) return;
      for (const loop of [intakeLoop, trackerLoop, scheduleUpkeep]) loop.wake();
      outboxLoop.wake();
    });
    // A stored trigger owes its "received" messages at once: wake the outbox too, not only intake.
    wakeWorkers = () => {
      intakeLoop.wake();
      outboxLoop.wake();
    };
    // Another replica stored work (PostgreSQL's LISTEN/NOTIFY): take it up now, not at the next poll.
    store.onChange?.((change) => (change === 'outbox' ? outboxLoop.wake() : wakeWorkers()));
    stops.push(async () => {
      await Promise.all(loops.map((loop) => loop.stop()));
      // Beating until the work in flight is finished, so nobody takes it over meanwhile.
      await livenessLoop.stop();
      // Let another process tick right away instead of waiting out our lease.
      await tracker.release();
    });
    // After wakeWorkers is set, so a fire at start (catch-up, an unfinished fire) wakes the intake worker.
    await scheduler.start();
    // Stops run in reverse: the scheduler stops before the loops and the database.
    stops.push(() => scheduler.stop());

    const probe = runApiProbe(api);
    stops.push(() => probe.close());
    const checks: ReadinessCheck[] = [
      { name: 'database', check: () => store.ping() },
      { name: 'agent_api', check: () => probe.check() },
    ];
    const routes: HttpRoute[] = [
      ...healthRoutes({ checks, metrics, logger, now: () => clock.now() }),
      slack?.route ??
        notConfiguredRoute(
          '/slack/events',
          'Slack over HTTP',
          slack
            ? 'Slack runs in Socket Mode here (SLACK_APP_TOKEN); events arrive over the WebSocket'
            : 'set SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET (or SLACK_APP_TOKEN for Socket Mode)',
        ),
      linear?.route ?? notConfiguredRoute('/linear/webhook', 'Linear', 'set LINEAR_API_KEY (or LINEAR_ACCESS_TOKEN) and LINEAR_WEBHOOK_SECRET'),
    ];
    const http = await listen(createHttpServer({ routes, metrics, logger }), config.http.port, config.http.host);
    // Stopped first (stops run in reverse): no new requests while the workers finish.
    stops.push(() => http.close());
    logger.info({ url: http.url, database: describeDatabase(config.database) }, 'agent-bridge is listening');
    // Said loudly rather than silently ignoring the operator's Linear settings.
    if (config.schedules.length > 0) {
      logger.info(
        { schedules: config.schedules.map((schedule) => `${schedule.name} (${schedule.cron} ${schedule.timezone}${schedule.enabled ? '' : ', disabled'})`) },
        'schedules are on',
      );
    }

    return { url: http.url, agentApiBaseUrl: api.baseUrl, emulated: api.emulator !== undefined, store, metrics, intake: intakeService, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
