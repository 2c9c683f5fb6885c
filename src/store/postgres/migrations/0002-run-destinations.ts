import type { Migration } from '../../migrations/migration.js';

/** As SQLite's migration 2: where a run's messages go, and the trigger that asked for it. */
export const pgMigration0002: Migration = {
  id: 2,
  name: 'run-destinations',
  sql: `
ALTER TABLE tracked_runs ADD COLUMN destinations TEXT NOT NULL DEFAULT '[]';
ALTER TABLE tracked_runs ADD COLUMN trigger_key TEXT;
`,
};
