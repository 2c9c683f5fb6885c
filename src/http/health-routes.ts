import type { Logger } from '../core/logger.js';
import { sendJson } from './http-error.js';
import type { Metrics } from './metrics.js';
import type { Route } from './server.js';

/** One readiness check: resolves when the dependency answers, throws (with a safe message) when not. */
export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
}

/** `/healthz` (the process is alive), `/readyz` (every check passes) and `/metrics` (Prometheus text). */
export function healthRoutes(options: { checks: ReadinessCheck[]; metrics: Metrics; logger: Logger }): Route[] {
  const { checks, metrics, logger } = options;
  return [
    { method: 'GET', path: '/healthz', handle: (_req, res) => sendJson(res, 200, { status: 'ok' }) },
    {
      method: 'GET',
      path: '/readyz',
      handle: async (_req, res) => {
        const results = await Promise.all(
          checks.map(async ({ name, check }) => {
            try {
              await check();
              metrics.ready.set({ check: name }, 1);
              return [name, { ok: true }] as const;
            } catch (error) {
              metrics.ready.set({ check: name }, 0);
              const message = error instanceof Error ? error.message : String(error);
              logger.warn({ check: name, reason: message }, 'readiness check failed');
              return [name, { ok: false, error: message }] as const;
            }
          }),
        );
        const ready = results.every(([, result]) => result.ok);
        sendJson(res, ready ? 200 : 503, { status: ready ? 'ready' : 'not_ready', checks: Object.fromEntries(results) });
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
export function notConfiguredRoute(path: string, integration: string, howToEnable: string): Route {
  return {
    method: 'POST',
    path,
    handle: (_req, res) =>
      sendJson(res, 404, { error: 'not_configured', message: `${integration} is not configured on this service: ${howToEnable}` }),
  };
}
