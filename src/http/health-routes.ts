import type { Logger } from '../core/ports/logger.js';
import { sendJson } from './http-error.js';
import type { Metrics } from './metrics.js';
import { CachedReadiness, type ReadinessCheck } from './readiness.js';
import type { HttpRoute } from './server.js';

export type { ReadinessCheck } from './readiness.js';

/**
 * `/healthz` (the process is alive), `/readyz` (every check passes) and `/metrics` (Prometheus text).
 * `/readyz` is anonymous: it says only `ok` or `fail` per check, from outcomes at most a few seconds
 * old (`CachedReadiness`); why a check fails goes to the log and `agent-bridge config check`.
 */
export function healthRoutes(options: { checks: ReadinessCheck[]; metrics: Metrics; logger: Logger; now?: () => number }): HttpRoute[] {
  const { checks, metrics, logger } = options;
  const readiness = new CachedReadiness(checks, {
    now: options.now ?? Date.now,
    logger,
    onOutcome: (outcome) => metrics.ready.set({ check: outcome.name }, outcome.ok ? 1 : 0),
  });
  return [
    { method: 'GET', path: '/healthz', handle: (_req, res) => sendJson(res, 200, { status: 'ok' }) },
    {
      method: 'GET',
      path: '/readyz',
      handle: async (_req, res) => {
        const outcomes = await readiness.outcomes();
        const ready = outcomes.every((outcome) => outcome.ok);
        const summary = Object.fromEntries(outcomes.map((outcome) => [outcome.name, outcome.ok ? 'ok' : 'fail']));
        sendJson(res, ready ? 200 : 503, { status: ready ? 'ready' : 'not_ready', checks: summary });
      },
    },
    {
      method: 'GET',
      path: '/metrics',
      handle: async (_req, res) => {
        const text = await metrics.registry.metrics();
        res.writeHead(200, { 'content-type': metrics.registry.contentType });
        res.end(text);
      },
    },
  ];
}

/** The route of an integration that is not configured: 404 with how to turn it on. */
export function notConfiguredRoute(path: string, integration: string, howToEnable: string): HttpRoute {
  return {
    method: 'POST',
    path,
    handle: (_req, res) => sendJson(res, 404, { error: 'not_configured', message: `${integration} is not configured on this service: ${howToEnable}` }),
  };
}
