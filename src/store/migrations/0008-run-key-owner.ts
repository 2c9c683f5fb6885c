import type { Migration } from './migration.js';

/**
 * Whose key created a run: the person whose personal API key started it, NULL for the
 * service key. The run API may show a run only to the key that created it, so the tracker lists per
 * key that has active runs; the index answers "which people have tracked runs" in one scan.
 */
export const migration0008: Migration = {
  id: 8,
  name: 'run-key-owner',
  sql: `
ALTER TABLE tracked_runs ADD COLUMN key_owner TEXT;
CREATE INDEX tracked_runs_key_owner ON tracked_runs (tracked, key_owner);
`,
};
