import type pg from 'pg';
import type { AppliedMigration } from '../migrate.js';
import { SchemaTooNewError } from '../migrate.js';
import type { Migration } from '../migrations/index.js';
import { PG_MIGRATIONS } from './migrations/index.js';

/** Key of the advisory lock held while migrating (any constant; "agent-bridge" in ASCII, truncated). */
const MIGRATION_LOCK = 0x6167656e742d62n;

/**
 * Brings the schema up to date under a session advisory lock, so N replicas starting together on an
 * empty database migrate it once: the first takes the lock and migrates, the others wait, then find
 * every migration recorded. Each migration runs in its own transaction with its record. Refuses
 * (SchemaTooNewError) a database with a migration newer than `migrations` knows. Returns the ids
 * applied now.
 */
export async function migratePostgres(pool: pg.Pool, now: () => number, migrations: readonly Migration[] = PG_MIGRATIONS): Promise<number[]> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK.toString()]);
    try {
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        id         INTEGER PRIMARY KEY,
        name       TEXT    NOT NULL,
        applied_at BIGINT  NOT NULL
      )`);
      const known = migrations.reduce((max, m) => Math.max(max, m.id), 0);
      const applied = new Set((await client.query<{ id: number }>('SELECT id FROM schema_migrations')).rows.map((row) => row.id));
      const newest = Math.max(0, ...applied);
      if (newest > known) throw new SchemaTooNewError(newest, known);

      const done: number[] = [];
      for (const migration of [...migrations].sort((a, b) => a.id - b.id)) {
        if (applied.has(migration.id)) continue;
        await client.query('BEGIN');
        try {
          await client.query(migration.sql);
          await client.query('INSERT INTO schema_migrations (id, name, applied_at) VALUES ($1, $2, $3)', [migration.id, migration.name, now()]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          throw error;
        }
        done.push(migration.id);
      }
      return done;
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK.toString()]);
    }
  } catch (error) {
    // A failure mid-way may leave the session in an unknown state: do not return it to the pool.
    broken = error instanceof Error ? error : new Error(String(error));
    throw error;
  } finally {
    client.release(broken);
  }
}

/** The migrations recorded in the database, in id order. */
export async function appliedPostgresMigrations(pool: Pick<pg.Pool, 'query'>): Promise<AppliedMigration[]> {
  const result = await pool.query<{ id: number; name: string; applied_at: number }>('SELECT id, name, applied_at FROM schema_migrations ORDER BY id');
  return result.rows.map((row) => ({ id: row.id, name: row.name, appliedAt: row.applied_at }));
}
