import type { Migration } from './migration.js';

/**
 * Usage and cost: who asked for each run (a person id, NULL for a schedule or the
 * command line), its route's name, and the latest `request_usage` the tracker saw (NULL until one was
 * reported). Usage is summed by person, route, source and day of `created_at`; the limits count a
 * person's or a route's runs since a day or a month began, hence the indexes.
 */
export const migration0012: Migration = {
  id: 12,
  name: 'run-usage',
  sql: `
ALTER TABLE tracked_runs ADD COLUMN requester TEXT;
ALTER TABLE tracked_runs ADD COLUMN route_name TEXT;
ALTER TABLE tracked_runs ADD COLUMN inference_cost REAL;
ALTER TABLE tracked_runs ADD COLUMN compute_cost REAL;
CREATE INDEX tracked_runs_created ON tracked_runs (created_at);
CREATE INDEX tracked_runs_requester ON tracked_runs (requester, created_at);
CREATE INDEX tracked_runs_route_name ON tracked_runs (route_name, created_at);
`,
};
