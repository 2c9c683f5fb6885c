import type { Migration } from '../../migrations/migration.js';

/** As SQLite's migration 14: the audit trail, appended once per `once_key`. */
export const pgMigration0014: Migration = {
  id: 14,
  name: 'audit-trail',
  sql: `
CREATE TABLE audit_entries (
  id        BIGSERIAL PRIMARY KEY,
  at        BIGINT NOT NULL,
  act       TEXT COLLATE "C" NOT NULL,
  person_id TEXT COLLATE "C",
  surface   TEXT COLLATE "C" NOT NULL,
  run_id    TEXT COLLATE "C",
  detail    TEXT,
  once_key  TEXT COLLATE "C" NOT NULL UNIQUE
);
CREATE INDEX audit_entries_at ON audit_entries (at, id);
CREATE INDEX audit_entries_person ON audit_entries (person_id, at, id);
CREATE INDEX audit_entries_act ON audit_entries (act, at, id);
`,
};
