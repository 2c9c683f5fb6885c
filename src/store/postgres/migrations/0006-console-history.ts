import type { Migration } from '../../migrations/migration.js';

/** As SQLite's migration 6: each observed state of a run, dismissals of failed rows, and the console's indexes. */
export const pgMigration0006: Migration = {
  id: 6,
  name: 'console-history',
  sql: `
CREATE TABLE run_states (
  run_id            TEXT COLLATE "C" NOT NULL,
  transition        INTEGER NOT NULL,
  state             TEXT    NOT NULL,
  server_updated_at TEXT,
  observed_at       BIGINT  NOT NULL,
  PRIMARY KEY (run_id, transition)
);
INSERT INTO run_states (run_id, transition, state, server_updated_at, observed_at)
  SELECT run_id, transition, state, server_updated_at, COALESCE(last_seen_at, updated_at) FROM tracked_runs;

ALTER TABLE outbox ADD COLUMN dismissed_at BIGINT;
ALTER TABLE triggers ADD COLUMN dismissed_at BIGINT;

CREATE INDEX tracked_runs_newest ON tracked_runs (created_at, run_id);
CREATE INDEX triggers_run ON triggers (run_id, id);
CREATE INDEX outbox_failed ON outbox (id) WHERE state = 'failed' AND dismissed_at IS NULL;
CREATE INDEX triggers_failed ON triggers (id) WHERE state = 'failed' AND dismissed_at IS NULL;
`,
};
