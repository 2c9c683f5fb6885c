import type { Migration } from './migration.js';

/**
 * The audit trail: one row per act that changes something, appended once by its
 * `once_key` and never updated; `detail` is a JSON object of short facts (route name, key, limit),
 * never text people wrote. Read newest first, filtered by person or act; deleted once older than
 * `audit.retention` (the index on `at` serves both).
 */
export const migration0014: Migration = {
  id: 14,
  name: 'audit-trail',
  sql: `
CREATE TABLE audit_entries (
  id        INTEGER PRIMARY KEY AUTOINCREMENT,
  at        INTEGER NOT NULL,
  act       TEXT    NOT NULL,
  person_id TEXT,
  surface   TEXT    NOT NULL,
  run_id    TEXT,
  detail    TEXT,
  once_key  TEXT    NOT NULL UNIQUE
);
CREATE INDEX audit_entries_at ON audit_entries (at, id);
CREATE INDEX audit_entries_person ON audit_entries (person_id, at, id);
CREATE INDEX audit_entries_act ON audit_entries (act, at, id);
`,
};
