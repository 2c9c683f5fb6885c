import type { Migration } from './index.js';

/**
 * Where a run's messages go. A Slack- or Linear-started run answers at its anchor only, but a
 * scheduled run may report to a Slack channel and a Linear issue at once, so the tracker needs the
 * list, not just the anchor.
 */
export const migration0002: Migration = {
  id: 2,
  name: 'run-destinations',
  sql: `
ALTER TABLE tracked_runs ADD COLUMN destinations TEXT NOT NULL DEFAULT '[]';
`,
};
