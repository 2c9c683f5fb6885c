/**
 * The counters the core reports, as a port: the core never imports prom-client. `http/metrics.ts`
 * implements it on the service's Prometheus registry; tests use `noMetrics` or a recording double.
 */
export interface CoreMetrics {
  runStarted(source: string): void;
  followupSent(source: string): void;
  cancelRequested(source: string): void;
  triggerFailed(source: string): void;
  /** Time from a trigger's receipt to its run being created (or its follow-up sent), in ms. */
  intakeLatency(ms: number): void;
  trackerTick(report: { requests: number; changed: number; tracked: number }): void;
  outboxDelivered(platform: string): void;
  outboxRetried(platform: string): void;
  outboxFailed(platform: string): void;
}

export const noMetrics: CoreMetrics = {
  runStarted: () => {},
  followupSent: () => {},
  cancelRequested: () => {},
  triggerFailed: () => {},
  intakeLatency: () => {},
  trackerTick: () => {},
  outboxDelivered: () => {},
  outboxRetried: () => {},
  outboxFailed: () => {},
};
