import type { Migration } from './migration.js';

/**
 * Where a run's messages go, and the trigger that asked for it. A Slack- or Linear-started run
 * answers at its anchor only, but a scheduled run may report to a Slack channel and a Linear issue at
 * once, so the tracker needs the list, not just the anchor; and each state edits the status message
 * that was posted when the trigger was received, found through the trigger's key.
 */
export const migration0002: Migration = {
  id: 2,
  name: 'run-destinations',
  sql: `
ALTER TABLE tracked_runs ADD COLUMN destinations TEXT NOT NULL DEFAULT '[]';
ALTER TABLE tracked_runs ADD COLUMN trigger_key TEXT;
`,
};
