import type { Migration } from '../../migrations/migration.js';

/**
 * As SQLite's migration 5, for what a PostgreSQL database can hold: the `linear.states` moves made for
 * a run are kept with the run (`workflow_moves`), and move keys recorded as event keys are moved over.
 * SQLite's rewrite of `linear:<identifier>` anchors to issue ids is not repeated: no PostgreSQL
 * database was written before issue ids became anchors, and one filled by `db copy` gets its rows from
 * a SQLite database that migration already rewrote.
 */
export const pgMigration0005: Migration = {
  id: 5,
  name: 'linear-issue-ids',
  sql: `
ALTER TABLE tracked_runs ADD COLUMN workflow_moves TEXT NOT NULL DEFAULT '[]';

UPDATE tracked_runs SET workflow_moves = (
    SELECT json_agg(CASE WHEN e.key = 'linear:moved:started:' || tracked_runs.run_id THEN 'started' ELSE 'pull_request' END ORDER BY e.key DESC)::text
      FROM event_keys e
     WHERE e.key IN ('linear:moved:started:' || tracked_runs.run_id, 'linear:moved:pull_request:' || tracked_runs.run_id))
 WHERE EXISTS (SELECT 1 FROM event_keys e
                WHERE e.key IN ('linear:moved:started:' || tracked_runs.run_id, 'linear:moved:pull_request:' || tracked_runs.run_id));

DELETE FROM event_keys WHERE key LIKE 'linear:moved:%';
`,
};
