import type { CoreMetrics } from '../../src/core/ports/metrics.js';

/** A `CoreMetrics` double: every call as `name(arg)` strings in order, e.g. `outboxDelivered(slack)`. */
export function recordingMetrics(): CoreMetrics & { calls: string[] } {
  const calls: string[] = [];
  const record =
    (name: string) =>
    (arg: unknown): void => {
      calls.push(`${name}(${typeof arg === 'string' ? arg : JSON.stringify(arg)})`);
    };
  return {
    calls,
    runStarted: record('runStarted'),
    followupSent: record('followupSent'),
    cancelRequested: record('cancelRequested'),
    triggerFailed: record('triggerFailed'),
    intakeLatency: record('intakeLatency'),
    trackerTick: record('trackerTick'),
    outboxDelivered: record('outboxDelivered'),
    outboxRetried: record('outboxRetried'),
    outboxFailed: record('outboxFailed'),
  };
}
