import type { Migration } from './migration.js';

/**
 * The outbox claim wants the oldest unsent row whose destination has nothing earlier unsent. Through
 * the (state, next_attempt_at) index it visited every pending row and sorted them, so a backlog of
 * 10,000 rows cost ~10 ms per claim and drained in quadratic time (docs/benchmarks.md). A partial
 * index of unsent rows in id order lets the claim stop at the first eligible row. PostgreSQL supports
 * the same partial index.
 */
export const migration0003: Migration = {
  id: 3,
  name: 'outbox-unsent-index',
  sql: `
CREATE INDEX outbox_unsent ON outbox (id) WHERE state IN ('pending', 'sending');
CREATE INDEX triggers_unfinished ON triggers (id) WHERE state IN ('pending', 'working');
`,
};
