import type { DatabaseConfig } from '../config/types.js';
import type { Clock } from '../core/ports/clock.js';
import type { Store } from '../core/ports/store.js';
import type { GroupCommit } from './group-commit.js';
import { openSqliteStore } from './sqlite-store.js';

export interface OpenStoreOptions {
  /** Told about database connection errors that are survived (and, on SQLite, a failed checkpoint worker). */
  onProblem?: (error: unknown) => void;
  /** A long-running process: on SQLite, checkpoint the WAL in a worker thread on this clock's timer. */
  clock?: Clock;
  /** When a batch of enqueued triggers is committed (group-commit.ts); default: the next turn. */
  groupCommit?: GroupCommit;
}

/**
 * Opens the store the configuration chose: SQLite at `DATABASE_PATH`, or PostgreSQL at `DATABASE_URL`
 * (loaded only then: a SQLite installation never loads the driver). Migrations are applied either way.
 */
export async function openStore(database: DatabaseConfig, options: OpenStoreOptions = {}): Promise<Store> {
  if (database.kind === 'sqlite') {
    const { clock, onProblem, groupCommit } = options;
    return openSqliteStore({
      path: database.path,
      ...(clock && { checkpoints: { clock, ...(onProblem && { onProblem }) } }),
      ...(groupCommit && { groupCommit }),
    });
  }
  const { openPostgresStore } = await import('./postgres/postgres-store.js');
  return openPostgresStore({
    url: database.url,
    ...(options.onProblem && { onProblem: options.onProblem }),
    ...(options.groupCommit && { groupCommit: options.groupCommit }),
  });
}

/** How the database is named in messages and logs: the SQLite file, or the URL with its password masked. */
export function describeDatabase(database: DatabaseConfig): string {
  return database.kind === 'sqlite' ? database.path : database.maskedUrl;
}
