import type { Migration } from './migration.js';

/**
 * The trace context a row was stored in, as a W3C `traceparent` (NULL while tracing is off): a
 * trigger's is its request's span (the intake worker's first attempt is its child, a retry links to
 * it), a tracked run's is the intake span that started it, and an outbox row's the trace that owes it
 * (the run's, for what the tracker owes): each delivery links to it, so a run's whole life is found
 * from its run id (docs/observability.md).
 */
export const migration0017: Migration = {
  id: 17,
  name: 'trace-context',
  sql: `
ALTER TABLE triggers ADD COLUMN traceparent TEXT;
ALTER TABLE tracked_runs ADD COLUMN traceparent TEXT;
ALTER TABLE outbox ADD COLUMN traceparent TEXT;
`,
};
