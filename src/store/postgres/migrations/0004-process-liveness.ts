import type { Migration } from '../../migrations/migration.js';

/** As SQLite's migration 4: the processes sharing the database, and the process holding each claim. */
export const pgMigration0004: Migration = {
  id: 4,
  name: 'process-liveness',
  sql: `
CREATE TABLE processes (
  id           TEXT COLLATE "C" PRIMARY KEY,
  host         TEXT    NOT NULL,
  pid          INTEGER NOT NULL,
  started_at   BIGINT  NOT NULL,
  heartbeat_at BIGINT  NOT NULL,
  alive_until  BIGINT  NOT NULL,
  stopped_at   BIGINT
);
CREATE INDEX processes_host ON processes (host, stopped_at);
CREATE INDEX processes_alive ON processes (stopped_at, alive_until);

ALTER TABLE triggers ADD COLUMN lease_process TEXT;
ALTER TABLE outbox ADD COLUMN lease_process TEXT;
ALTER TABLE leases ADD COLUMN process TEXT;
`,
};
