import { hostname } from 'node:os';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { packageVersion } from '../host/version.js';
import type { CoreMetrics } from '../core/ports/metrics.js';
import type { UsageTotal } from '../core/ports/usage-store.js';

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

/** Which replica serves the metrics: `agent_bridge_replica_info`'s labels. */
export interface ReplicaInfo {
  host: string;
  pid: number;
  version: string;
}

/** This process: the same host and pid its log lines carry. */
export function thisReplica(): ReplicaInfo {
  return { host: hostname(), pid: process.pid, version: packageVersion() };
}

export function createMetrics(options: { defaultMetrics?: boolean; replica?: ReplicaInfo } = {}): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry, prefix: 'agent_bridge_' });
  registerReplicaInfo(registry, options.replica ?? thisReplica());
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

/**
 * `agent_bridge_replica_info{host,pid,version} 1`, the Prometheus "info" convention, rather than a
 * replica label on every series: the scrape's `instance` label already keeps replicas apart, and a pid
 * on every series would start a new series for every metric at each restart. Joined when wanted, e.g.
 * `agent_bridge_tracked_runs * on(instance) group_left(host, pid) agent_bridge_replica_info`.
 */
function registerReplicaInfo(registry: Registry, replica: ReplicaInfo): void {
  const info = new Gauge({
    name: 'agent_bridge_replica_info',
    help: 'Which replica this is (always 1): host, pid and agent-bridge version',
    labelNames: ['host', 'pid', 'version'],
    registers: [registry],
  });
  info.set({ host: replica.host, pid: String(replica.pid), version: replica.version }, 1);
}

/** What the gauges read from the database at scrape time. */
export interface StoredFigures {
  /** Outbox rows by state. */
  outboxCounts?: () => Promise<Record<string, number>>;
  /** Runs and their credits by source, since the database began. */
  usageTotals?: () => Promise<UsageTotal[]>;
}

/**
 * The core's counters on the service's registry. The stored figures are read at scrape time, so
 * those gauges are the database's truth (shared by every replica), not counts kept in memory.
 */
export function createCoreMetrics(registry: Registry, stored: StoredFigures = {}): CoreMetrics {
  const { outboxCounts, usageTotals } = stored;
  const bySource = (name: string, help: string) => new Counter({ name, help, labelNames: ['source'], registers: [registry] });
  const byPlatform = (name: string, help: string) => new Counter({ name, help, labelNames: ['platform'], registers: [registry] });
  const runsStarted = bySource('agent_bridge_runs_started_total', 'Runs started (or adopted after a crash), by source');
  const followups = bySource('agent_bridge_followups_total', 'Follow-ups delivered to runs, by source');
  const cancels = bySource('agent_bridge_cancels_total', 'Cancels sent to the run API, by source');
  const triggersFailed = bySource('agent_bridge_triggers_failed_total', 'Triggers given up on and reported to people, by source');
  const intakeLatency = new Histogram({
    name: 'agent_bridge_intake_latency_seconds',
    help: 'From a trigger being stored to its run being created or its follow-up sent',
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15, 60, 300],
    registers: [registry],
  });
  const ticks = new Counter({ name: 'agent_bridge_tracker_ticks_total', help: 'Tracker ticks run by this process', registers: [registry] });
  const tickRequests = new Histogram({
    name: 'agent_bridge_tracker_requests_per_tick',
    help: 'Run-API requests one tracker tick made',
    buckets: [0, 1, 2, 3, 5, 10, 20, 50],
    registers: [registry],
  });
  const changes = new Counter({ name: 'agent_bridge_tracker_transitions_total', help: 'Run state changes the tracker observed', registers: [registry] });
  const tracked = new Gauge({ name: 'agent_bridge_tracked_runs', help: 'Runs tracked at the last tick', registers: [registry] });
  const delivered = byPlatform('agent_bridge_outbox_delivered_total', 'Messages delivered to people, by platform');
  const retried = byPlatform('agent_bridge_outbox_retried_total', 'Message deliveries that failed and will be retried, by platform');
  const failed = byPlatform('agent_bridge_outbox_failed_total', 'Messages given up on, by platform');
  if (outboxCounts) {
    new Gauge({
      name: 'agent_bridge_outbox_rows',
      help: 'Outbox rows by state (pending, sending, sent, failed)',
      labelNames: ['state'],
      registers: [registry],
      async collect() {
        for (const [state, count] of Object.entries(await outboxCounts())) this.set({ state }, count);
      },
    });
  }
  if (usageTotals) registerUsageGauges(registry, usageTotals);
  return {
    runStarted: (source) => runsStarted.inc({ source }),
    followupSent: (source) => followups.inc({ source }),
    cancelRequested: (source) => cancels.inc({ source }),
    triggerFailed: (source) => triggersFailed.inc({ source }),
    intakeLatency: (ms) => intakeLatency.observe(ms / 1000),
    trackerTick: (report) => {
      ticks.inc();
      tickRequests.observe(report.requests);
      changes.inc(report.changed);
      tracked.set(report.tracked);
    },
    outboxDelivered: (platform) => delivered.inc({ platform }),
    outboxRetried: (platform) => retried.inc({ platform }),
    outboxFailed: (platform) => failed.inc({ platform }),
  };
}

/**
 * Usage totals: runs and credits by source since the database began, as the tracker last
 * recorded them. Gauges, not counters: they are the database's sums, the same on every replica (a
 * dashboard takes one replica's value, or `max by (source)`), and a run's usage is read as it grows.
 */
function registerUsageGauges(registry: Registry, usageTotals: () => Promise<UsageTotal[]>): void {
  // One read per scrape for both gauges: a scrape collects them together, so they share the read in flight.
  let reading: Promise<UsageTotal[]> | undefined;
  const read = () =>
    (reading ??= usageTotals().finally(() => {
      setImmediate(() => (reading = undefined));
    }));
  new Gauge({
    name: 'agent_bridge_usage_runs',
    help: 'Runs created, by source (from the database)',
    labelNames: ['source'],
    registers: [registry],
    async collect() {
      for (const total of await read()) this.set({ source: total.source }, total.runs);
    },
  });
  new Gauge({
    name: 'agent_bridge_usage_credits',
    help: 'Credits runs used as last reported by the run API, by source and kind (inference, compute; from the database)',
    labelNames: ['source', 'kind'],
    registers: [registry],
    async collect() {
      for (const total of await read()) {
        this.set({ source: total.source, kind: 'inference' }, total.inferenceCost);
        this.set({ source: total.source, kind: 'compute' }, total.computeCost);
      }
    },
  });
}
