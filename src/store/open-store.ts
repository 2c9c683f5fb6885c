import type { DatabaseConfig } from '../config/types.js';
import type { Store } from '../core/ports/store.js';
import { openSqliteStore } from './sqlite-store.js';

export interface OpenStoreOptions {
  /** Told about database connection errors that are survived (PostgreSQL only). */
  onProblem?: (error: unknown) => void;
}

/**
 * Opens the store the configuration chose: SQLite at `DATABASE_PATH`, or PostgreSQL at `DATABASE_URL`
 * (loaded only then: a SQLite installation never loads the driver). Migrations are applied either way.
 */
export async function openStore(database: DatabaseConfig, options: OpenStoreOptions = {}): Promise<Store> {
  if (database.kind === 'sqlite') return openSqliteStore({ path: database.path });
  const { openPostgresStore } = await import('./postgres/postgres-store.js');
  return openPostgresStore({ url: database.url, ...(options.onProblem && { onProblem: options.onProblem }) });
}

/** How the database is named in messages and logs: the SQLite file, or the URL with its password masked. */
export function describeDatabase(database: DatabaseConfig): string {
  return database.kind === 'sqlite' ? database.path : database.maskedUrl;
}
