import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresSkipNote, requirePostgres, startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { reservedPort } from '../helpers/ports.js';
import { runCli } from '../helpers/spawn-cli.js';

/*
 * Choosing the store: DATABASE_URL selects PostgreSQL; a wrong choice or a database that
 * cannot be opened stops `serve` with exit 2 and a message naming host, port and database — never
 * the password.
 */
const PASSWORD = 'Pw-s3cret-77';
const runs = requirePostgres('choosing the store at start');

describe.skipIf(!runs)(`choosing the store${postgresSkipNote()}`, () => {
  let server: PostgresServer;
  let emptyUrl: string;
  beforeAll(async () => {
    server = await startPostgres();
    emptyUrl = await server.createDatabase({ name: 'bridge_check' });
    // PostgreSQL 15 lets only the owner create tables in a new database's public schema.
    await server.admin('CREATE ROLE reader LOGIN');
  });
  afterAll(async () => server?.stop());

  it.each([
    [
      'a database nobody listens for',
      async () => ({ DATABASE_URL: `postgres://bridge:${PASSWORD}@127.0.0.1:${await reservedPort()}/app` }),
      /Cannot open the PostgreSQL database 127\.0\.0\.1:\d+\/app: ECONNREFUSED/,
    ],
    [
      'a database the server does not have',
      () => ({ DATABASE_URL: `postgres://postgres:${PASSWORD}@${server.host}:${server.port}/nope` }),
      /Cannot open the PostgreSQL database 127\.0\.0\.1:\d+\/nope: database "nope" does not exist/,
    ],
    [
      'a user that may not create the tables',
      () => ({ DATABASE_URL: `postgres://reader:${PASSWORD}@${server.host}:${server.port}/bridge_check` }),
      /Cannot set up the tables of the PostgreSQL database 127\.0\.0\.1:\d+\/bridge_check: permission denied for schema public\. The user in DATABASE_URL needs to create tables/,
    ],
    [
      'both DATABASE_URL and DATABASE_PATH',
      () => ({ DATABASE_URL: `postgres://bridge:${PASSWORD}@db.example/app`, DATABASE_PATH: 'bridge.db' }),
      /DATABASE_URL: both DATABASE_URL \(PostgreSQL\) and DATABASE_PATH \(SQLite\) are set/,
    ],
    [
      'a URL of another scheme',
      () => ({ DATABASE_URL: `mysql://bridge:${PASSWORD}@db.example/app` }),
      /DATABASE_URL: must be a postgres:\/\/ or postgresql:\/\/ URL, not mysql:/,
    ],
  ])('%s: serve exits 2 and names the database, not the password', async (_name, env, message) => {
    const run = await runCli(['serve'], { env: { ...(await env()), PORT: '0', HOST: '127.0.0.1' } });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stdout + run.stderr).not.toContain(PASSWORD);
  });

  it('config check says PostgreSQL is used, with the URL masked', async () => {
    const url = emptyUrl.replace('postgres://postgres@', `postgres://postgres:${PASSWORD}@`);
    const run = await runCli(['config', 'check', '--offline'], { env: { DATABASE_URL: `${url}?sslmode=disable` } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`Database: PostgreSQL at postgres://postgres:****@${server.host}:${server.port}/bridge_check?sslmode=disable`);
    expect(run.stdout).not.toContain(PASSWORD);
  });
});
