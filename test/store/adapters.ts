/**
 * The `Store` adapters the contract tests run against: every repository test in `src/store/*.test.ts`
 * runs once per adapter (`describe.each(STORE_ADAPTERS)`), each test on a fresh, empty, migrated store.
 *
 * - sqlite: a new `:memory:` database per store.
 * - postgres: a throwaway server per test file (test/helpers/postgres-server.ts) with one migrated
 *   database; each `open()` empties every table (identities restarted, so ids start at 1 as on a new
 *   SQLite database) and opens a new pool on it. Without the server binaries the postgres suites are
 *   skipped under a title that says so, except under CI, where that is an error.
 */
import { afterAll, describe } from 'vitest';
import type { Store } from '../../src/core/ports/store.js';
import { openPostgresStore, type PostgresStore } from '../../src/store/postgres/postgres-store.js';
import type { GroupCommit } from '../../src/store/group-commit.js';
import { openSqliteStore } from '../../src/store/sqlite-store.js';
import { postgresSkipNote, requirePostgres, startPostgres, type PostgresServer } from '../helpers/postgres-server.js';

export interface StoreAdapter {
  name: string;
  /** True when this adapter's tests cannot run here (the title says why). */
  skipped: boolean;
  /** A fresh, empty, migrated store; the caller closes it. */
  open(options?: { groupCommit?: GroupCommit }): Promise<Store>;
}

let server: Promise<PostgresServer> | undefined;
let database: Promise<string> | undefined;

// Registered when a test file imports this module: the file's server stops after its last test.
afterAll(async () => {
  if (server) await (await server).stop();
});

/** The file's server and its one migrated database, started on first use. */
function postgresDatabase(): Promise<string> {
  server ??= startPostgres();
  database ??= server.then(async (started) => {
    const url = await started.createDatabase();
    const store = await openPostgresStore({ url });
    await store.close();
    return url;
  });
  return database;
}

/** Every table but the migrations' record, emptied, with its ids restarted. */
async function emptyTables(store: PostgresStore): Promise<void> {
  const tables = await store.pool.query<{ tablename: string }>(
    "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations'",
  );
  const names = tables.rows.map((row) => `"${row.tablename}"`).join(', ');
  await store.pool.query(`TRUNCATE ${names} RESTART IDENTITY`);
}

const sqlite: StoreAdapter = {
  name: 'sqlite',
  skipped: false,
  open: (options = {}) => Promise.resolve(openSqliteStore({ path: ':memory:', ...options })),
};

const postgresRuns = requirePostgres('Store contract tests');
const postgres: StoreAdapter = {
  name: `postgres${postgresSkipNote()}`,
  skipped: !postgresRuns,
  async open(options = {}) {
    const store = await openPostgresStore({ url: await postgresDatabase(), ...options });
    await emptyTables(store);
    return store;
  },
};

export const STORE_ADAPTERS: readonly StoreAdapter[] = [sqlite, postgres];

/** Runs `tests` once per adapter, in a suite named after it (`sqlite store`, `postgres store`). */
export function describeEachStore(tests: (adapter: StoreAdapter) => void): void {
  for (const adapter of STORE_ADAPTERS) (adapter.skipped ? describe.skip : describe)(`${adapter.name} store`, () => tests(adapter));
}
