import type { Migration } from './migration.js';

/**
 * People's personal API keys: one row per Slack user, the key sealed by the key box
 * (AES-256-GCM under AGENT_BRIDGE_SECRET), never in the clear; its last 4 characters are what people
 * are shown.
 */
export const migration0007: Migration = {
  id: 7,
  name: 'person-keys',
  sql: `
CREATE TABLE person_keys (
  person_id    TEXT    NOT NULL PRIMARY KEY,
  sealed       TEXT    NOT NULL,
  last_four    TEXT    NOT NULL,
  connected_at INTEGER NOT NULL,
  last_used_at INTEGER
);
`,
};
