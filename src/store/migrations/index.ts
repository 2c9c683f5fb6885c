import { migration0001 } from './0001-initial.js';
import { migration0002 } from './0002-run-destinations.js';
import { migration0003 } from './0003-outbox-unsent-index.js';
import { migration0004 } from './0004-process-liveness.js';
import { migration0005 } from './0005-linear-issue-ids.js';

/** A numbered schema change, applied once, in its own transaction. */
export interface Migration {
  /** 1, 2, 3, … in order, never reused. */
  id: number;
  name: string;
  sql: string;
}

/**
 * Every migration, in order. Append-only. They are TypeScript modules (not .sql files) so the build
 * copies them into dist/ with the rest of the code.
 */
export const MIGRATIONS: readonly Migration[] = [migration0001, migration0002, migration0003, migration0004, migration0005];
