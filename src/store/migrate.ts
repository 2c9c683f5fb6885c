import type Database from 'better-sqlite3';
import { MIGRATIONS, type Migration } from './migrations/index.js';

/** The database was written by a newer agent-bridge than this one. */
export class SchemaTooNewError extends Error {
  constructor(
    readonly databaseVersion: number,
    readonly knownVersion: number,
  ) {
    super(
      `The database schema is at migration ${databaseVersion}, but this agent-bridge knows migrations up to ` +
        `${knownVersion} only: it was written by a newer version. Upgrade agent-bridge, or point DATABASE_PATH at another file.`,
    );
    this.name = 'SchemaTooNewError';
  }
}

export interface AppliedMigration {
  id: number;
  name: string;
  appliedAt: number;
}

/**
 * Brings the schema up to date: creates `schema_migrations` when absent, then applies each migration
 * not yet recorded, each in its own `BEGIN IMMEDIATE` transaction together with its record, so two
 * processes opening one file at the same time apply each migration once. Refuses (SchemaTooNewError)
 * a database that has a migration newer than `migrations` knows. Returns the ids applied now.
 */
export function migrate(db: Database.Database, now: () => number, migrations: readonly Migration[] = MIGRATIONS): number[] {
  db.transaction(() => {
    db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      id         INTEGER PRIMARY KEY,
      name       TEXT    NOT NULL,
      applied_at INTEGER NOT NULL
    )`);
  }).immediate();

  const known = migrations.reduce((max, m) => Math.max(max, m.id), 0);
  const maxApplied = db.prepare<[], { id: number | null }>('SELECT MAX(id) AS id FROM schema_migrations');
  const isApplied = db.prepare<[number], { id: number }>('SELECT id FROM schema_migrations WHERE id = ?');
  const record = db.prepare<[number, string, number]>('INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, ?)');

  const newest = maxApplied.get()?.id ?? 0;
  if (newest > known) throw new SchemaTooNewError(newest, known);

  const applied: number[] = [];
  for (const migration of [...migrations].sort((a, b) => a.id - b.id)) {
    db.transaction(() => {
      if (isApplied.get(migration.id)) return; // another process got there first
      db.exec(migration.sql);
      record.run(migration.id, migration.name, now());
      applied.push(migration.id);
    }).immediate();
  }
  return applied;
}

/** The migrations recorded in the database, in id order. */
export function appliedMigrations(db: Database.Database): AppliedMigration[] {
  return db
    .prepare<[], { id: number; name: string; applied_at: number }>('SELECT id, name, applied_at FROM schema_migrations ORDER BY id')
    .all()
    .map((row) => ({ id: row.id, name: row.name, appliedAt: row.applied_at }));
}
