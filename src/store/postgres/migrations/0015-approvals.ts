import type { Migration } from '../../migrations/migration.js';

/** As SQLite's migration 15: requests held for approval. */
export const pgMigration0015: Migration = {
  id: 15,
  name: 'approvals',
  sql: `
CREATE TABLE approvals (
  id          TEXT COLLATE "C" NOT NULL PRIMARY KEY,
  state       TEXT   NOT NULL CHECK (state IN ('held', 'approved', 'rejected', 'expired')),
  trigger     TEXT   NOT NULL,
  approvers   TEXT   NOT NULL,
  route       TEXT   NOT NULL,
  held_at     BIGINT NOT NULL,
  expires_at  BIGINT NOT NULL,
  decided_by  TEXT,
  decided_at  BIGINT,
  started_at  BIGINT
);
CREATE INDEX approvals_held ON approvals (expires_at) WHERE state = 'held';
CREATE INDEX approvals_unstarted ON approvals (decided_at) WHERE state = 'approved' AND started_at IS NULL;
`,
};
