import type { Migration } from './migration.js';

/**
 * Requests held for approval: one row per held request (its trigger's key), the
 * request itself to start once approved, who may decide and until when. `state` leaves `held` once,
 * by a compare-and-set (`UPDATE … WHERE state = 'held'`): two clicks at once start one run.
 */
export const migration0015: Migration = {
  id: 15,
  name: 'approvals',
  sql: `
CREATE TABLE approvals (
  id          TEXT    NOT NULL PRIMARY KEY,
  state       TEXT    NOT NULL CHECK (state IN ('held', 'approved', 'rejected', 'expired')),
  trigger     TEXT    NOT NULL,
  approvers   TEXT    NOT NULL,
  route       TEXT    NOT NULL,
  held_at     INTEGER NOT NULL,
  expires_at  INTEGER NOT NULL,
  decided_by  TEXT,
  decided_at  INTEGER,
  started_at  INTEGER
);
CREATE INDEX approvals_held ON approvals (expires_at) WHERE state = 'held';
CREATE INDEX approvals_unstarted ON approvals (decided_at) WHERE state = 'approved' AND started_at IS NULL;
`,
};
