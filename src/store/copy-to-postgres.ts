/**
 * Moves an installation from SQLite to PostgreSQL (`agent-bridge db copy --to postgres://…`): every
 * table of the SQLite database, row for row, into an EMPTY PostgreSQL database, in one transaction
 * that commits only when the row counts of both sides agree. Made for a stopped service: it refuses
 * while a process of the SQLite database still beats.
 */
import { existsSync } from 'node:fs';
import type pg from 'pg';
import { appliedMigrations } from './migrate.js';
import { appliedPostgresMigrations } from './postgres/migrate.js';
import { bindable } from './postgres/pg-sql.js';
import { openPostgresStore } from './postgres/postgres-store.js';
import { openSqliteStore, type SqliteStore } from './sqlite-store.js';

/** Why the copy was refused or failed; `code` is stable, the message says what to do. */
export class DatabaseCopyError extends Error {
  override readonly name = 'DatabaseCopyError';
  constructor(
    readonly code: 'source_missing' | 'source_in_use' | 'target_not_empty' | 'schema_mismatch' | 'count_mismatch',
    message: string,
  ) {
    super(message);
  }
}

export interface TableCount {
  table: string;
  sqlite: number;
  postgres: number;
}

export interface CopyOptions {
  /** The SQLite file (must exist: a copy never creates one). */
  from: string;
  /** `postgres://…` of an empty database (it is migrated first). */
  to: string;
  now: () => number;
  /** Rows per INSERT. Default 500. */
  batchSize?: number;
}

/** The service's own tables, in SQLite's schema; `schema_migrations` is each side's own. */
const SKIPPED = new Set(['schema_migrations']);

/**
 * Copies and returns the counts it checked on both sides. Throws `DatabaseCopyError` (nothing
 * written) when the source is missing or in use, the target holds rows, the two schemas differ, or
 * the counts disagree; a `StartupError` when the target cannot be opened.
 */
export async function copySqliteToPostgres(options: CopyOptions): Promise<TableCount[]> {
  if (!existsSync(options.from)) {
    throw new DatabaseCopyError(
      'source_missing',
      `There is no SQLite database at ${options.from}: set DATABASE_PATH (or --from) to the file the service used.`,
    );
  }
  const source = openSqliteStore({ path: options.from });
  try {
    await refuseWhileRunning(source, options.now());
    const target = await openPostgresStore({ url: options.to, now: options.now });
    try {
      const tables = sourceTables(source);
      await refuseNonEmpty(target.pool, tables);
      await refuseSchemaMismatch(source, target.pool);
      return await copyTables(source, target.pool, tables, options.batchSize ?? 500);
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

async function refuseWhileRunning(source: SqliteStore, now: number): Promise<void> {
  const alive = (await source.processes.list(1000)).filter((process) => process.stoppedAt === null && process.aliveUntil > now);
  if (alive.length === 0) return;
  const which = alive.map((process) => `pid ${process.pid} on ${process.host}`).join(', ');
  throw new DatabaseCopyError(
    'source_in_use',
    `The SQLite database is in use (${which}): stop the service first, so nothing changes while it is copied (a process killed moments ago counts as alive for a few seconds).`,
  );
}

function sourceTables(source: SqliteStore): string[] {
  return source.db
    .prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .pluck()
    .all()
    .filter((name) => !SKIPPED.has(name));
}

async function refuseNonEmpty(pool: pg.Pool, tables: readonly string[]): Promise<void> {
  const holding: string[] = [];
  for (const table of tables) {
    const found = await pool.query<{ n: number }>(`SELECT COUNT(*) AS n FROM ${quote(table)}`);
    const n = found.rows[0]?.n ?? 0;
    if (n > 0) holding.push(`${table} (${n})`);
  }
  if (holding.length === 0) return;
  throw new DatabaseCopyError(
    'target_not_empty',
    `The PostgreSQL database is not empty — rows in ${holding.join(', ')}. A copy goes into an empty database only: create a new one, or drop these rows if you mean to replace them.`,
  );
}

async function refuseSchemaMismatch(source: SqliteStore, pool: pg.Pool): Promise<void> {
  const sqlite = appliedMigrations(source.db).map((m) => m.id);
  const postgres = (await appliedPostgresMigrations(pool)).map((m) => m.id);
  if (sqlite.join() === postgres.join()) return;
  throw new DatabaseCopyError(
    'schema_mismatch',
    `The two schemas differ (SQLite at migrations ${sqlite.join(', ')}; PostgreSQL at ${postgres.join(', ')}): use the same agent-bridge version for both.`,
  );
}

async function copyTables(source: SqliteStore, pool: pg.Pool, tables: readonly string[], batchSize: number): Promise<TableCount[]> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const counts: TableCount[] = [];
    for (const table of tables) {
      const columns = source.db
        .prepare<[], { name: string }>(`SELECT name FROM pragma_table_info('${table.replace(/'/g, "''")}')`)
        .all()
        .map((column) => column.name);
      // rowid order keeps each table's order (anchor_runs.seq is PostgreSQL's stand-in for it).
      const rows = source.db
        .prepare(`SELECT ${columns.map(quote).join(', ')} FROM ${quote(table)} ORDER BY rowid`)
        .raw()
        .iterate() as IterableIterator<unknown[]>;
      let batch: unknown[][] = [];
      const flush = async () => {
        if (batch.length === 0) return;
        const values = batch.map((row, r) => `(${row.map((_, c) => `$${r * columns.length + c + 1}`).join(', ')})`).join(', ');
        await client.query(`INSERT INTO ${quote(table)} (${columns.map(quote).join(', ')}) VALUES ${values}`, batch.flat().map(bindable));
        batch = [];
      };
      for (const row of rows) {
        batch.push(row);
        if (batch.length >= batchSize) await flush();
      }
      await flush();
      await advanceSequences(client, table);
      const sqlite =
        source.db
          .prepare<[], number>(`SELECT COUNT(*) FROM ${quote(table)}`)
          .pluck()
          .get() ?? 0;
      const postgres = (await client.query<{ n: number }>(`SELECT COUNT(*) AS n FROM ${quote(table)}`)).rows[0]?.n ?? 0;
      counts.push({ table, sqlite, postgres });
    }
    const wrong = counts.filter((count) => count.sqlite !== count.postgres);
    if (wrong.length > 0) {
      await client.query('ROLLBACK');
      throw new DatabaseCopyError(
        'count_mismatch',
        `Row counts differ after copying (${wrong.map((w) => `${w.table}: ${w.sqlite} vs ${w.postgres}`).join(', ')}); nothing was kept.`,
      );
    }
    await client.query('COMMIT');
    return counts;
  } catch (error) {
    if (!(error instanceof DatabaseCopyError)) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
    }
    throw error;
  } finally {
    client.release(broken);
  }
}

/** Ids were copied as they were: the sequences must continue after the largest, or the next insert collides. */
async function advanceSequences(client: pg.PoolClient, table: string): Promise<void> {
  const serials = await client.query<{ column_name: string }>(
    "SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 AND column_default LIKE 'nextval(%'",
    [table],
  );
  for (const { column_name: column } of serials.rows) {
    await client.query(`SELECT setval(pg_get_serial_sequence($1, $2), COALESCE((SELECT MAX(${quote(column)}) FROM ${quote(table)}), 0) + 1, false)`, [
      table,
      column,
    ]);
  }
}

function quote(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
