import type { Migration } from '../../migrations/migration.js';

/**
 * The first schema, as SQLite's migration 1: times are epoch milliseconds (BIGINT), JSON is TEXT
 * (read back exactly as the SQLite store does; JSONB would refuse some strings SQLite keeps),
 * booleans are 0/1 SMALLINT. Columns that are sorted or range-compared by text use the "C" collation,
 * so their order is SQLite's byte order whatever the database's locale. `anchor_runs.seq` stands in
 * for SQLite's rowid (the history's order among links of one millisecond).
 */
export const pgMigration0001: Migration = {
  id: 1,
  name: 'initial',
  sql: `
CREATE TABLE triggers (
  id                  BIGSERIAL PRIMARY KEY,
  key                 TEXT    NOT NULL UNIQUE,
  kind                TEXT    NOT NULL,
  source              TEXT    NOT NULL,
  anchor              TEXT    NOT NULL,
  payload             TEXT    NOT NULL,
  state               TEXT    NOT NULL DEFAULT 'pending',
  attempts            INTEGER NOT NULL DEFAULT 0,
  next_attempt_at     BIGINT  NOT NULL,
  lease_owner         TEXT,
  lease_until         BIGINT,
  create_attempted_at BIGINT,
  run_id              TEXT,
  last_error          TEXT,
  received_at         BIGINT  NOT NULL,
  updated_at          BIGINT  NOT NULL
);
CREATE INDEX triggers_claim ON triggers (state, next_attempt_at);
CREATE INDEX triggers_anchor ON triggers (anchor, state, id);

CREATE TABLE outbox (
  id              BIGSERIAL PRIMARY KEY,
  key             TEXT    NOT NULL UNIQUE,
  destination     TEXT    NOT NULL,
  kind            TEXT    NOT NULL,
  payload         TEXT    NOT NULL,
  state           TEXT    NOT NULL DEFAULT 'pending',
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at BIGINT  NOT NULL,
  lease_owner     TEXT,
  lease_until     BIGINT,
  result          TEXT,
  last_error      TEXT,
  created_at      BIGINT  NOT NULL,
  sent_at         BIGINT
);
CREATE INDEX outbox_claim ON outbox (state, next_attempt_at);
CREATE INDEX outbox_destination ON outbox (destination, state, id);

CREATE TABLE tracked_runs (
  run_id            TEXT COLLATE "C" PRIMARY KEY,
  anchor            TEXT COLLATE "C" NOT NULL,
  source            TEXT    NOT NULL,
  title             TEXT,
  route             TEXT    NOT NULL,
  state             TEXT    NOT NULL,
  server_updated_at TEXT,
  session_link      TEXT,
  transition        INTEGER NOT NULL DEFAULT 0,
  tracked           SMALLINT NOT NULL DEFAULT 1,
  last_seen_at      BIGINT,
  created_at        BIGINT  NOT NULL,
  updated_at        BIGINT  NOT NULL
);
CREATE INDEX tracked_runs_seen ON tracked_runs (tracked, last_seen_at);

CREATE TABLE anchor_runs (
  anchor    TEXT    NOT NULL,
  run_id    TEXT    NOT NULL,
  linked_at BIGINT  NOT NULL,
  seq       BIGSERIAL NOT NULL,
  PRIMARY KEY (anchor, run_id)
);
CREATE INDEX anchor_runs_run ON anchor_runs (run_id, linked_at);

CREATE TABLE anchors (
  anchor     TEXT    PRIMARY KEY,
  run_id     TEXT    NOT NULL,
  updated_at BIGINT  NOT NULL
);

CREATE TABLE event_keys (
  key     TEXT    PRIMARY KEY,
  seen_at BIGINT  NOT NULL
);
CREATE INDEX event_keys_seen ON event_keys (seen_at);

CREATE TABLE schedule_fires (
  id          BIGSERIAL PRIMARY KEY,
  schedule    TEXT    NOT NULL,
  slot        TEXT    NOT NULL,
  fired_at    BIGINT  NOT NULL,
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
  lease_until BIGINT  NOT NULL,
  acquired_at BIGINT  NOT NULL
);

CREATE TABLE settings (
  name  TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
`,
};
