import type { Metrics } from '../http/metrics.js';
import { healthEndpoints, type ReadinessCheck } from '../http/health-endpoints.js';
import type { Endpoint } from '../http/server.js';
import type { Logger } from '../core/ports/logger.js';

/**
 * Every route of the one HTTP server: health, readiness and metrics, then each surface's webhook, or
 * a 404 that says how to turn the surface on.
 */
export function serviceEndpoints(parts: {
  checks: ReadinessCheck[];
  metrics: Metrics;
  logger: Logger;
  now: () => number;
  /** `METRICS_TOKEN`: `/metrics` answers only its bearer. */
  metricsToken?: string;
  /** The surfaces' routes (`StartedSurfaces.endpoints`: each started surface's, else how to turn it on). */
  surfaces: Endpoint[];
}): Endpoint[] {
  return [
    ...healthEndpoints({
      checks: parts.checks,
      metrics: parts.metrics,
      logger: parts.logger,
      now: parts.now,
      ...(parts.metricsToken !== undefined && { metricsToken: parts.metricsToken }),
    }),
    ...parts.surfaces,
  ];
}
