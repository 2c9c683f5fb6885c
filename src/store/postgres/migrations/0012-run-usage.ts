import type { Migration } from '../../migrations/migration.js';

/** As SQLite's migration 12: who asked for a run, its route's name, and its latest reported usage. */
export const pgMigration0012: Migration = {
  id: 12,
  name: 'run-usage',
  sql: `
ALTER TABLE tracked_runs ADD COLUMN requester TEXT COLLATE "C";
ALTER TABLE tracked_runs ADD COLUMN route_name TEXT COLLATE "C";
ALTER TABLE tracked_runs ADD COLUMN inference_cost DOUBLE PRECISION;
ALTER TABLE tracked_runs ADD COLUMN compute_cost DOUBLE PRECISION;
CREATE INDEX tracked_runs_created ON tracked_runs (created_at);
CREATE INDEX tracked_runs_requester ON tracked_runs (requester, created_at);
CREATE INDEX tracked_runs_route_name ON tracked_runs (route_name, created_at);
`,
};
