import type { Migration } from './migration.js';

/**
 * The web console shows what the tracker only overwrote before: every observed state of a
 * run with its time (`run_states`, one row per transition, 0 = the state the run was stored with).
 * An operator may dismiss a failed delivery or trigger from "needs attention" (`dismissed_at`). The
 * indexes serve the runs page (newest first, keyset paging), a run's triggers and the failed rows.
 */
export const migration0006: Migration = {
  id: 6,
  name: 'console-history',
  sql: `
CREATE TABLE run_states (
  run_id            TEXT    NOT NULL,
  transition        INTEGER NOT NULL,
  state             TEXT    NOT NULL,
  server_updated_at TEXT,
  observed_at       INTEGER NOT NULL,
  PRIMARY KEY (run_id, transition)
);
INSERT INTO run_states (run_id, transition, state, server_updated_at, observed_at)
  SELECT run_id, transition, state, server_updated_at, COALESCE(last_seen_at, updated_at) FROM tracked_runs;

ALTER TABLE outbox ADD COLUMN dismissed_at INTEGER;
ALTER TABLE triggers ADD COLUMN dismissed_at INTEGER;

CREATE INDEX tracked_runs_newest ON tracked_runs (created_at, run_id);
CREATE INDEX triggers_run ON triggers (run_id, id);
CREATE INDEX outbox_failed ON outbox (id) WHERE state = 'failed' AND dismissed_at IS NULL;
CREATE INDEX triggers_failed ON triggers (id) WHERE state = 'failed' AND dismissed_at IS NULL;
`,
};
