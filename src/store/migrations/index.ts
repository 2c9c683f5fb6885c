import { migration0001 } from './0001-initial.js';
import { migration0002 } from './0002-run-destinations.js';
import { migration0003 } from './0003-outbox-unsent-index.js';
import { migration0004 } from './0004-process-liveness.js';
import { migration0005 } from './0005-linear-issue-ids.js';
import { migration0006 } from './0006-console-history.js';
import { migration0007 } from './0007-person-keys.js';
import { migration0008 } from './0008-run-key-owner.js';
import { migration0009 } from './0009-person-links.js';
import { migration0010 } from './0010-console-sessions.js';
import { migration0011 } from './0011-surface-person-links.js';
import { migration0012 } from './0012-run-usage.js';
import { migration0013 } from './0013-run-reservations.js';
import { migration0014 } from './0014-audit-trail.js';
import { migration0015 } from './0015-approvals.js';
import { migration0016 } from './0016-state-count-indexes.js';
import { migration0017 } from './0017-trace-context.js';
import type { Migration } from './migration.js';

export type { Migration } from './migration.js';

/**
 * Every migration, in order. Append-only. They are TypeScript modules (not .sql files) so the build
 * copies them into dist/ with the rest of the code.
 */
export const MIGRATIONS: readonly Migration[] = [
  migration0001,
  migration0002,
  migration0003,
  migration0004,
  migration0005,
  migration0006,
  migration0007,
  migration0008,
  migration0009,
  migration0010,
  migration0011,
  migration0012,
  migration0013,
  migration0014,
  migration0015,
  migration0016,
  migration0017,
];
