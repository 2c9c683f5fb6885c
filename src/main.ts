import { randomBytes } from 'node:crypto';
import { AgentApiClient } from './agent-api/index.js';
import type { AppConfig } from './config/types.js';
import { systemClock, type Clock } from './core/clock.js';
import { explainError } from './core/explain-error.js';
import type { Logger } from './core/logger.js';
import type { Store } from './core/store.js';
import { startEmulator, type RunningEmulator } from './emulator/index.js';
import { healthRoutes, notConfiguredRoute, type ReadinessCheck } from './http/health-routes.js';
import { createMetrics, type Metrics } from './http/metrics.js';
import { createHttpServer, listen, type Route } from './http/server.js';
import { openSqliteStore } from './store/sqlite-store.js';

export interface ServiceOptions {
  config: AppConfig;
  logger: Logger;
  clock?: Clock;
}

export interface RunningService {
  /** Where the HTTP server listens, e.g. `http://0.0.0.0:3000`. */
  url: string;
  /** The run API in use (the built-in emulator's when `emulated`). */
  agentApiBaseUrl: string;
  emulated: boolean;
  store: Store;
  metrics: Metrics;
  /** Graceful stop: no new requests, in-flight work finished, then the database closed. */
  stop(): Promise<void>;
}

const READINESS_TIMEOUT_MS = 3_000;

/**
 * The composition root: builds every part from the validated config and starts it. Nothing below
 * reads the environment; everything gets what it needs from here.
 */
export async function startService(options: ServiceOptions): Promise<RunningService> {
  const { config, logger } = options;
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
    const store = openSqliteStore({ path: config.database.path });
    stops.push(() => store.close());
    const metrics = createMetrics();

    const api = await agentApiEndpoint(config, logger);
    if (api.emulator) stops.push(() => api.emulator!.close());

    const agentRuns = new AgentApiClient({
      baseUrl: api.baseUrl,
      apiKey: api.apiKey,
      onRequest: ({ call, status }) => metrics.agentApiRequests.inc({ call, status: String(status) }),
      onRetry: ({ call, attempt, delayMs, error }) =>
        logger.warn({ call, attempt, delayMs, code: error.code, status: error.status }, 'retrying run API call'),
    });
    stops.push(() => agentRuns.close());
    // Readiness must answer quickly and say the truth now: no retries, a short timeout.
    const probe = new AgentApiClient({ baseUrl: api.baseUrl, apiKey: api.apiKey, timeoutMs: READINESS_TIMEOUT_MS, retry: { maxRetries: 0 } });
    stops.push(() => probe.close());

    const checks: ReadinessCheck[] = [
      { name: 'database', check: () => store.ping() },
      {
        name: 'agent_api',
        check: async () => {
          try {
            await probe.listRuns({ limit: 1 });
          } catch (error) {
            throw new Error(explainError(error));
          }
        },
      },
    ];
    const routes: Route[] = [
      ...healthRoutes({ checks, metrics, logger }),
      notConfiguredRoute('/slack/events', 'Slack', 'set SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET (or SLACK_APP_TOKEN for Socket Mode)'),
      notConfiguredRoute('/linear/webhook', 'Linear', 'set LINEAR_API_KEY (or LINEAR_ACCESS_TOKEN) and LINEAR_WEBHOOK_SECRET'),
    ];
    const server = createHttpServer({ routes, metrics, logger });
    const http = await listen(server, config.http.port, config.http.host);
    stops.push(() => http.close());
    logger.info({ url: http.url, database: config.database.path }, 'agent-bridge is listening');

    return {
      url: http.url,
      agentApiBaseUrl: api.baseUrl,
      emulated: api.emulator !== undefined,
      store,
      metrics,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** The configured run API, or the built-in emulator on a free local port when none is configured. */
async function agentApiEndpoint(config: AppConfig, logger: Logger): Promise<{ baseUrl: string; apiKey: string; emulator?: RunningEmulator }> {
  if (!config.agentApi.emulated && config.agentApi.baseUrl && config.agentApi.apiKey) {
    return { baseUrl: config.agentApi.baseUrl, apiKey: config.agentApi.apiKey };
  }
  const apiKey = randomBytes(16).toString('hex');
  const emulator = await startEmulator({ apiKey, port: 0, host: '127.0.0.1' });
  logger.warn(
    { emulator: emulator.baseUrl },
    'AGENT_API_BASE_URL is not set: using the BUILT-IN RUN-API EMULATOR — runs are simulated, no agent does real work. ' +
      'Set AGENT_API_BASE_URL and AGENT_API_KEY to use the real Cloud Agent Run API.',
  );
  return { baseUrl: emulator.baseUrl, apiKey, emulator };
}
