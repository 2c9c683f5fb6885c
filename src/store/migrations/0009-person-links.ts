import type { Migration } from './migration.js';

/**
 * Linear users known to be Slack users: a Linear trigger by one of them belongs to that
 * person (their key, their name). `how` is `email` (the same verified email, found once and kept) or
 * `console` (an admin's link, which an email lookup never replaces).
 */
export const migration0009: Migration = {
  id: 9,
  name: 'person-links',
  sql: `
CREATE TABLE person_links (
  linear_user_id TEXT    NOT NULL PRIMARY KEY,
  slack_user_id  TEXT    NOT NULL,
  how            TEXT    NOT NULL CHECK (how IN ('email', 'console')),
  linked_at      INTEGER NOT NULL
);
`,
};
