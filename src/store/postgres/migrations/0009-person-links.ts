import type { Migration } from '../../migrations/migration.js';

/** As SQLite's migration 9: Linear users known to be Slack users. */
export const pgMigration0009: Migration = {
  id: 9,
  name: 'person-links',
  sql: `
CREATE TABLE person_links (
  linear_user_id TEXT COLLATE "C" NOT NULL PRIMARY KEY,
  slack_user_id  TEXT   NOT NULL,
  how            TEXT   NOT NULL CHECK (how IN ('email', 'console')),
  linked_at      BIGINT NOT NULL
);
`,
};
