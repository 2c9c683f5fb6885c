import type { Migration } from '../../migrations/migration.js';

/** As SQLite's migration 10: the console's signing key and the sessions signed out before they expired. */
export const pgMigration0010: Migration = {
  id: 10,
  name: 'console-sessions',
  sql: `
CREATE TABLE console_keys (
  name       TEXT COLLATE "C" NOT NULL PRIMARY KEY,
  value      TEXT   NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE TABLE console_sessions_ended (
  sid        TEXT COLLATE "C" NOT NULL PRIMARY KEY,
  expires_at BIGINT NOT NULL,
  ended_at   BIGINT NOT NULL
);
CREATE INDEX console_sessions_ended_expiry ON console_sessions_ended (expires_at);
`,
};
