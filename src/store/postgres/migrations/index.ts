import type { Migration } from '../../migrations/migration.js';
import { pgMigration0001 } from './0001-initial.js';
import { pgMigration0002 } from './0002-run-destinations.js';
import { pgMigration0003 } from './0003-outbox-unsent-index.js';
import { pgMigration0004 } from './0004-process-liveness.js';
import { pgMigration0005 } from './0005-linear-issue-ids.js';
import { pgMigration0006 } from './0006-console-history.js';
import { pgMigration0007 } from './0007-person-keys.js';
import { pgMigration0008 } from './0008-run-key-owner.js';
import { pgMigration0009 } from './0009-person-links.js';
import { pgMigration0010 } from './0010-console-sessions.js';
import { pgMigration0011 } from './0011-surface-person-links.js';
import { pgMigration0012 } from './0012-run-usage.js';
import { pgMigration0013 } from './0013-run-reservations.js';
import { pgMigration0014 } from './0014-audit-trail.js';
import { pgMigration0015 } from './0015-approvals.js';
import { pgMigration0016 } from './0016-state-count-indexes.js';
import { pgMigration0017 } from './0017-trace-context.js';

/**
 * Every PostgreSQL migration, in order. Append-only. Migration N here makes the same change as the
 * SQLite migration N (`src/store/migrations/`), in PostgreSQL's dialect, so both stores are always at
 * the same schema version and `db copy` can compare them.
 */
export const PG_MIGRATIONS: readonly Migration[] = [
  pgMigration0001,
  pgMigration0002,
  pgMigration0003,
  pgMigration0004,
  pgMigration0005,
  pgMigration0006,
  pgMigration0007,
  pgMigration0008,
  pgMigration0009,
  pgMigration0010,
  pgMigration0011,
  pgMigration0012,
  pgMigration0013,
  pgMigration0014,
  pgMigration0015,
  pgMigration0016,
  pgMigration0017,
];
