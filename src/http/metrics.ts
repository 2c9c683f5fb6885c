import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The service's Prometheus metrics, on a registry of its own (never the global one, so two services
 * in one test process do not collide). Later components add their counters here.
 */
export interface Metrics {
  registry: Registry;
  httpRequests: Counter<'route' | 'method' | 'status'>;
  httpDuration: Histogram<'route' | 'method'>;
  agentApiRequests: Counter<'call' | 'status'>;
  ready: Gauge<'check'>;
}

export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry, prefix: 'agent_bridge_' });
  return {
    registry,
    httpRequests: new Counter({
      name: 'agent_bridge_http_requests_total',
      help: 'HTTP requests answered, by route, method and status',
      labelNames: ['route', 'method', 'status'],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'agent_bridge_http_request_duration_seconds',
      help: 'Time to answer an HTTP request',
      labelNames: ['route', 'method'],
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 3],
      registers: [registry],
    }),
    agentApiRequests: new Counter({
      name: 'agent_bridge_agent_api_requests_total',
      help: 'Requests sent to the run API, by call and status (0 = no answer)',
      labelNames: ['call', 'status'],
      registers: [registry],
    }),
    ready: new Gauge({
      name: 'agent_bridge_ready',
      help: '1 when the readiness check passed at its last run, by check',
      labelNames: ['check'],
      registers: [registry],
    }),
  };
}
