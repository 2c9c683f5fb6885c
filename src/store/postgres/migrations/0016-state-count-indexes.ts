import type { Migration } from '../../migrations/migration.js';

/**
 * As SQLite's migration 16: the (state, next_attempt_at) indexes, which only the counts by state still
 * read and every state change had to update (and which a planner with stale statistics could pick for
 * a claim, reading every pending row), give way to partial indexes of finished rows.
 */
export const pgMigration0016: Migration = {
  id: 16,
  name: 'state-count-indexes',
  sql: `
DROP INDEX outbox_claim;
DROP INDEX triggers_claim;
CREATE INDEX outbox_finished ON outbox (state) WHERE state IN ('sent', 'failed');
CREATE INDEX triggers_finished ON triggers (state) WHERE state IN ('done', 'failed', 'ignored');
`,
};
