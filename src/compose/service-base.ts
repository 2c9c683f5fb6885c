/**
 * The first steps of the composition root (`main.ts`): the database, the run API, and this process
 * among the replicas. Each registers what it opened with `shutdown`, which stops them in reverse order.
 */
import { AgentApiClient } from '../agent-api/index.js';
import type { AppConfig } from '../config/types.js';
import { Liveness } from '../core/liveness/liveness.js';
import type { AgentApiError, AgentRuns } from '../core/ports/agent-runs.js';
import type { Clock } from '../core/ports/clock.js';
import type { AccessPolicy } from '../core/ports/intake.js';
import type { Logger } from '../core/ports/logger.js';
import type { Notifier } from '../core/ports/notifier.js';
import { isRunningOnThisHost, newProcessIdentity, releaseProcessIdentity } from '../host/process-identity.js';
import { createCoreMetrics, createMetrics } from '../http/metrics.js';
import type { GroupCommit } from '../store/group-commit.js';
import { openStore } from '../store/open-store.js';
import { watchTracker } from './console.js';
import { agentApiEndpoint } from './run-api-endpoint.js';
import type { Shutdown } from './shutdown.js';

/** Seams for tests and embedding: extra notifiers, and a wrapper around the run-API client. */
export interface ServiceOverrides {
  notifiers?: Notifier[];
  wrapAgentRuns?: (runs: AgentRuns) => AgentRuns;
  access?: AccessPolicy;
  /** Lease lengths (crash tests shorten them so a restarted process takes over quickly). */
  leases?: { intakeMs?: number; outboxMs?: number; trackerMs?: number; scheduleFireMs?: number };
}

/** What every step is built from. */
export interface ServiceBase {
  config: AppConfig;
  logger: Logger;
  clock: Clock;
  shutdown: Shutdown;
  overrides: ServiceOverrides | undefined;
}

/**
 * 1. The database (closed last), the metrics, and the tracker's last tick for the console's health
 * page. `groupCommit`: when a batch of triggers stored by acknowledging requests is committed.
 */
export async function openDatabase({ config, logger, clock, shutdown }: ServiceBase, groupCommit?: GroupCommit) {
  const store = await openStore(config.database, {
    clock,
    onProblem: (error) => logger.warn({ err: error }, 'database connection problem (recovering)'),
    ...(groupCommit && { groupCommit }),
  });
  shutdown.add('database', () => store.close());
  const metrics = createMetrics();
  const coreMetrics = createCoreMetrics(metrics.registry, { outboxCounts: () => store.outbox.counts(), usageTotals: () => store.usage.totals() });
  // The console's health page shows the tracker's last tick.
  const trackerWatch = watchTracker(coreMetrics, clock);
  return { store, metrics, coreMetrics, trackerWatch };
}

/** 2. The run API: the configured one, or the built-in emulator. */
export async function connectRunApi({ config, logger, shutdown, overrides }: ServiceBase, metrics: Awaited<ReturnType<typeof openDatabase>>['metrics']) {
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
  const agentRuns = overrides?.wrapAgentRuns?.(client) ?? client;
  return { api, emulated: emulator !== undefined, apiHooks, agentRuns };
}

/**
 * 3. This process among the replicas: its leases and claims are held by its id (its workers',
 * `<id>/<worker>`), and are free as soon as it stops or stops beating. Registered before any worker
 * starts, so a restart takes over its dead predecessor's work at once.
 */
export async function joinReplicas({ clock, logger, shutdown }: ServiceBase, store: Awaited<ReturnType<typeof openDatabase>>['store']) {
  const self = newProcessIdentity();
  const liveness = new Liveness({ store, clock, logger: logger.child({ component: 'liveness' }), self, isRunning: isRunningOnThisHost });
  await liveness.start();
  shutdown.add('liveness', async () => {
    await liveness.stop();
    releaseProcessIdentity(self.id);
  });
  return { self, liveness };
}
