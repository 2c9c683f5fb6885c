import type { Migration } from './migration.js';

/**
 * Limits: a start reserves its room under its person's and its route's limits,
 * in the same transaction that counts them, before the run API is called — so two requests racing
 * for the last slot start one run, on any number of processes. A reservation counts while its trigger
 * is being worked (pending or working); once the run is stored, the run counts instead, and a
 * reservation whose trigger ended otherwise counts for nothing. Rows older than a month are deleted by
 * the reservations themselves.
 */
export const migration0013: Migration = {
  id: 13,
  name: 'run-reservations',
  sql: `
CREATE TABLE run_reservations (
  trigger_key TEXT    NOT NULL PRIMARY KEY,
  requester   TEXT,
  route_name  TEXT    NOT NULL,
  reserved_at INTEGER NOT NULL
);
CREATE INDEX run_reservations_requester ON run_reservations (requester, reserved_at);
CREATE INDEX run_reservations_route_name ON run_reservations (route_name, reserved_at);
CREATE INDEX run_reservations_reserved_at ON run_reservations (reserved_at);
`,
};
