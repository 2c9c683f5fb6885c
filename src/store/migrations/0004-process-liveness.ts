import type { Migration } from './migration.js';

/**
 * Process liveness: leases used to say only how long their holder's work may take, so a
 * killed process's claims waited out their full length (30 s, 60 s) before anyone took them over.
 * Each process now keeps a row in `processes`, renewed by its heartbeat (`alive_until`); a claim
 * records the process holding it (`lease_process`, `process`), and a claim whose process has
 * stopped or stopped beating is free at once. Rows claimed before this migration have no process and
 * keep the plain lease.
 */
export const migration0004: Migration = {
  id: 4,
  name: 'process-liveness',
  sql: `
CREATE TABLE processes (
  id           TEXT    PRIMARY KEY,
  host         TEXT    NOT NULL,
  pid          INTEGER NOT NULL,
  started_at   INTEGER NOT NULL,
  heartbeat_at INTEGER NOT NULL,
  alive_until  INTEGER NOT NULL,
  stopped_at   INTEGER
);
CREATE INDEX processes_host ON processes (host, stopped_at);
CREATE INDEX processes_alive ON processes (stopped_at, alive_until);

ALTER TABLE triggers ADD COLUMN lease_process TEXT;
ALTER TABLE outbox ADD COLUMN lease_process TEXT;
ALTER TABLE leases ADD COLUMN process TEXT;
`,
};
