import type { Migration } from '../../migrations/migration.js';

/** As SQLite's migration 8: whose key created a run (NULL = the service key). */
export const pgMigration0008: Migration = {
  id: 8,
  name: 'run-key-owner',
  sql: `
ALTER TABLE tracked_runs ADD COLUMN key_owner TEXT COLLATE "C";
CREATE INDEX tracked_runs_key_owner ON tracked_runs (tracked, key_owner);
`,
};
