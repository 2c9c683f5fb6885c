import type { Migration } from '../../migrations/migration.js';

/** As SQLite's migration 7: people's personal API keys, sealed. */
export const pgMigration0007: Migration = {
  id: 7,
  name: 'person-keys',
  sql: `
CREATE TABLE person_keys (
  person_id    TEXT COLLATE "C" NOT NULL PRIMARY KEY,
  sealed       TEXT   NOT NULL,
  last_four    TEXT   NOT NULL,
  connected_at BIGINT NOT NULL,
  last_used_at BIGINT
);
`,
};
