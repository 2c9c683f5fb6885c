import type { Migration } from '../../migrations/migration.js';

/** As SQLite's migration 3: partial indexes of unsent rows and unfinished triggers, in id order, for the claims. */
export const pgMigration0003: Migration = {
  id: 3,
  name: 'outbox-unsent-index',
  sql: `
CREATE INDEX outbox_unsent ON outbox (id) WHERE state IN ('pending', 'sending');
CREATE INDEX triggers_unfinished ON triggers (id) WHERE state IN ('pending', 'working');
`,
};
