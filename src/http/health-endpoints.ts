import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Logger } from '../core/ports/logger.js';
import { sendJson } from './http-error.js';
import type { Metrics } from './metrics.js';
import { CachedReadiness, type ReadinessCheck } from './readiness.js';
import type { Endpoint } from './server.js';

export type { ReadinessCheck } from './readiness.js';

const digest = (text: string) => createHash('sha256').update(text).digest();

/** True when the request carries `Authorization: Bearer <token>` (compared in constant time, through digests). */
function bearerMatches(req: IncomingMessage, token: string): boolean {
  const match = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? '');
  return match !== null && timingSafeEqual(digest(match[1] ?? ''), digest(token));
}

/**
 * `/healthz` (the process is alive), `/readyz` (every check passes) and `/metrics` (Prometheus text).
 * `/readyz` is anonymous: it says only `ok` or `fail` per check, from outcomes at most a few seconds
 * old (`CachedReadiness`); why a check fails goes to the log and `agent-bridge config check`.
 * `/metrics` tells sign-in failures, admin actions, refused keys, the host and the pid: with
 * `metricsToken` (`METRICS_TOKEN`) set it answers only `Authorization: Bearer <token>` (401 otherwise).
 */
export function healthEndpoints(options: {
  checks: ReadinessCheck[];
  metrics: Metrics;
  logger: Logger;
  now?: () => number;
  metricsToken?: string;
}): Endpoint[] {
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
      handle: async (req, res) => {
        if (options.metricsToken !== undefined && !bearerMatches(req, options.metricsToken)) {
          return sendJson(
            res,
            401,
            { error: 'unauthorized', message: 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>' },
            { 'www-authenticate': 'Bearer realm="metrics"' },
          );
        }
        const text = await metrics.registry.metrics();
        res.writeHead(200, { 'content-type': metrics.registry.contentType });
        res.end(text);
      },
    },
  ];
}

/** The route of an integration that is not configured: 404 with how to turn it on. */
export function notConfiguredEndpoint(path: string, integration: string, howToEnable: string): Endpoint {
  return {
    method: 'POST',
    path,
    handle: (_req, res) => sendJson(res, 404, { error: 'not_configured', message: `${integration} is not configured on this service: ${howToEnable}` }),
  };
}
