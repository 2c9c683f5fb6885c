import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresSkipNote, requirePostgres, startPostgres, type PostgresServer } from '../../../test/helpers/postgres-server.js';
import { SchemaTooNewError } from '../migrate.js';
import { MIGRATIONS } from '../migrations/index.js';
import { openSqliteStore } from '../sqlite-store.js';
import { appliedPostgresMigrations } from './migrate.js';
import { PG_MIGRATIONS } from './migrations/index.js';
import { openPostgresStore } from './postgres-store.js';

/*
 * PostgreSQL migrations: the same numbers, names and tables and columns as SQLite's (a SQLite
 * migration without its PostgreSQL twin fails here), applied once when replicas start together.
 */
const runs = requirePostgres('PostgreSQL migrations');

/** Columns PostgreSQL has that SQLite keeps implicitly (anchor_runs.seq stands for SQLite's rowid). */
const POSTGRES_ONLY = new Set(['anchor_runs.seq']);

describe.skipIf(!runs)(`PostgreSQL migrations${postgresSkipNote()}`, () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(async () => server?.stop());

  it('mirror the SQLite migrations one for one', () => {
    expect(PG_MIGRATIONS.map(({ id, name }) => ({ id, name }))).toEqual(MIGRATIONS.map(({ id, name }) => ({ id, name })));
  });

  it('build the same tables with the same columns as SQLite', async () => {
    const sqlite = openSqliteStore({ path: ':memory:' });
    const sqliteColumns = sqlite.db
      .prepare<[], string>(
        "SELECT m.name || '.' || p.name FROM sqlite_master m JOIN pragma_table_info(m.name) p WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' ORDER BY 1",
      )
      .pluck()
      .all();
    await sqlite.close();
    const store = await openPostgresStore({ url: await server.createDatabase() });
    const found = await store.pool.query<{ column: string }>(
      "SELECT table_name || '.' || column_name AS column FROM information_schema.columns WHERE table_schema = 'public' ORDER BY 1",
    );
    await store.close();
    const postgresColumns = found.rows.map((row) => row.column).filter((column) => !POSTGRES_ONLY.has(column));
    expect([...postgresColumns].sort()).toEqual([...sqliteColumns].sort());
  });

  it('are applied once when five replicas start together on an empty database', async () => {
    const url = await server.createDatabase();
    const stores = await Promise.all(Array.from({ length: 5 }, (_, index) => openPostgresStore({ url, now: () => 1000 + index })));
    try {
      const applied = await appliedPostgresMigrations(stores[0]!.pool);
      expect(applied.map((migration) => migration.id)).toEqual(PG_MIGRATIONS.map((migration) => migration.id));
      // One replica applied them all (one clock), the others found them recorded.
      expect(new Set(applied.map((migration) => migration.appliedAt)).size).toBe(1);
      for (const store of stores) await store.ping();
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });

  it('refuse a database written by a newer agent-bridge', async () => {
    const url = await server.createDatabase();
    const store = await openPostgresStore({ url });
    await store.pool.query("INSERT INTO schema_migrations (id, name, applied_at) VALUES (999, 'from-the-future', 0)");
    await store.close();
    await expect(openPostgresStore({ url })).rejects.toBeInstanceOf(SchemaTooNewError);
  });
});
