import type { Migration } from '../../migrations/migration.js';

/** As SQLite's migration 17: the trace context (a W3C `traceparent`) of triggers, tracked runs and outbox rows. */
export const pgMigration0017: Migration = {
  id: 17,
  name: 'trace-context',
  sql: `
ALTER TABLE triggers ADD COLUMN traceparent TEXT;
ALTER TABLE tracked_runs ADD COLUMN traceparent TEXT;
ALTER TABLE outbox ADD COLUMN traceparent TEXT;
`,
};
