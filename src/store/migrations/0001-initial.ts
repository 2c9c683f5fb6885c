import type { Migration } from './migration.js';

/**
 * The first schema. Times are epoch milliseconds (INTEGER), JSON is TEXT, booleans are 0/1.
 * Append-only: never edit a migration that has shipped; add the next number instead.
 */
export const migration0001: Migration = {
  id: 1,
  name: 'initial',
  sql: `
CREATE TABLE triggers (
  id                  INTEGER PRIMARY KEY AUTOINCREMENT,
  key                 TEXT    NOT NULL UNIQUE,
  kind                TEXT    NOT NULL,
  source              TEXT    NOT NULL,
  anchor              TEXT    NOT NULL,
  payload             TEXT    NOT NULL,
  state               TEXT    NOT NULL DEFAULT 'pending',
  attempts            INTEGER NOT NULL DEFAULT 0,
  next_attempt_at     INTEGER NOT NULL,
  lease_owner         TEXT,
  lease_until         INTEGER,
  create_attempted_at INTEGER,
  run_id              TEXT,
  last_error          TEXT,
  received_at         INTEGER NOT NULL,
  updated_at          INTEGER NOT NULL
);
CREATE INDEX triggers_claim ON triggers (state, next_attempt_at);
CREATE INDEX triggers_anchor ON triggers (anchor, state, id);

CREATE TABLE outbox (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  key             TEXT    NOT NULL UNIQUE,
  destination     TEXT    NOT NULL,
  kind            TEXT    NOT NULL,
  payload         TEXT    NOT NULL,
  state           TEXT    NOT NULL DEFAULT 'pending',
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  lease_owner     TEXT,
  lease_until     INTEGER,
  result          TEXT,
  last_error      TEXT,
  created_at      INTEGER NOT NULL,
  sent_at         INTEGER
);
CREATE INDEX outbox_claim ON outbox (state, next_attempt_at);
CREATE INDEX outbox_destination ON outbox (destination, state, id);

CREATE TABLE tracked_runs (
  run_id            TEXT    PRIMARY KEY,
  anchor            TEXT    NOT NULL,
  source            TEXT    NOT NULL,
  title             TEXT,
  route             TEXT    NOT NULL,
  state             TEXT    NOT NULL,
  server_updated_at TEXT,
  session_link      TEXT,
  transition        INTEGER NOT NULL DEFAULT 0,
  tracked           INTEGER NOT NULL DEFAULT 1,
  last_seen_at      INTEGER,
  created_at        INTEGER NOT NULL,
  updated_at        INTEGER NOT NULL
);
CREATE INDEX tracked_runs_seen ON tracked_runs (tracked, last_seen_at);

CREATE TABLE anchor_runs (
  anchor    TEXT    NOT NULL,
  run_id    TEXT    NOT NULL,
  linked_at INTEGER NOT NULL,
  PRIMARY KEY (anchor, run_id)
);
CREATE INDEX anchor_runs_run ON anchor_runs (run_id, linked_at);

CREATE TABLE anchors (
  anchor     TEXT    PRIMARY KEY,
  run_id     TEXT    NOT NULL,
  updated_at INTEGER NOT NULL
);

CREATE TABLE event_keys (
  key     TEXT    PRIMARY KEY,
  seen_at INTEGER NOT NULL
);
CREATE INDEX event_keys_seen ON event_keys (seen_at);

CREATE TABLE schedule_fires (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  schedule    TEXT    NOT NULL,
  slot        TEXT    NOT NULL,
  fired_at    INTEGER NOT NULL,
  status      TEXT    NOT NULL,
  reason      TEXT,
  trigger_key TEXT,
  run_id      TEXT,
  UNIQUE (schedule, slot)
);
CREATE INDEX schedule_fires_latest ON schedule_fires (schedule, fired_at);

CREATE TABLE leases (
  name        TEXT    PRIMARY KEY,
  owner       TEXT    NOT NULL,
  lease_until INTEGER NOT NULL,
  acquired_at INTEGER NOT NULL
);

CREATE TABLE settings (
  name  TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
`,
};
