/**
 * A throwaway PostgreSQL server for tests: Debian's server binaries (`/usr/lib/postgresql/<v>/bin`)
 * run `initdb` in a temp directory and start on a free loopback port, with fsync off (a test database
 * need not survive a power cut). Each test file starts its own server (about a second) and makes a
 * fresh database per test or per file; `stop()` stops the server and removes the directory.
 *
 * PostgreSQL refuses to run as root, so when the tests run as root (CI, containers) the server runs
 * as the `postgres` system user through `su`. A watchdog stops the server and removes its directory
 * when the test process dies without calling `stop()` (a killed vitest worker leaves no server behind).
 *
 * A machine without the binaries: `postgresAvailability()` says why; with `CI` set that is a failure
 * (`requirePostgres` throws), otherwise the PostgreSQL tests are skipped under a name saying so.
 */
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { reservedPort } from './ports.js';

export type PostgresAvailability = { available: true; bin: string } | { available: false; reason: string };

const DEBIAN_ROOT = '/usr/lib/postgresql';

/** Where the server binaries are (the newest Debian version), or why there are none. */
export function postgresAvailability(): PostgresAvailability {
  const versions = existsSync(DEBIAN_ROOT)
    ? readdirSync(DEBIAN_ROOT)
        .filter((name) => existsSync(join(DEBIAN_ROOT, name, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const newest = versions[0];
  if (newest !== undefined) return { available: true, bin: join(DEBIAN_ROOT, newest, 'bin') };
  return {
    available: false,
    reason: `no PostgreSQL server binaries under ${DEBIAN_ROOT}/<version>/bin (install them: apt-get install -y postgresql; .ci/run does)`,
  };
}

/**
 * True when PostgreSQL tests can run. False (and a warning naming `what`) when they are skipped on a
 * developer's machine without the binaries; throws under CI, where a skipped suite would hide a gap.
 */
export function requirePostgres(what: string): boolean {
  const availability = postgresAvailability();
  if (availability.available) return true;
  const message = `PostgreSQL tests "${what}" cannot run: ${availability.reason}`;
  if (process.env['CI']) throw new Error(`${message}. CI must run every PostgreSQL test.`);
  console.warn(`SKIPPED: ${message}`);
  return false;
}

/** Title suffix for a skipped PostgreSQL suite, so the report names what did not run. */
export function postgresSkipNote(): string {
  const availability = postgresAvailability();
  return availability.available ? '' : ` (SKIPPED: ${availability.reason})`;
}

export interface PostgresServer {
  host: string;
  port: number;
  /** Connection URL of a database on this server (superuser `postgres`, no password: trust auth). */
  url(database: string): string;
  /** Creates a new, empty database (or a copy of `template`) and returns its URL. */
  createDatabase(options?: { name?: string; template?: string }): Promise<string>;
  /** Runs SQL as the superuser in the `postgres` database. */
  admin<T extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<pg.QueryResult<T>>;
  /** Stops the server at once and removes its directory; calling it again does nothing. */
  stop(): Promise<void>;
}

const isRoot = () => process.getuid?.() === 0;

/** Runs a server binary, as the `postgres` user when we are root. */
function runBinary(bin: string, program: string, args: string[]): void {
  const command = [join(bin, program), ...args];
  if (isRoot()) execFileSync('su', ['postgres', '-s', '/bin/sh', '-c', command.map(shellQuote).join(' ')], { stdio: 'pipe' });
  else execFileSync(command[0] as string, command.slice(1), { stdio: 'pipe' });
}

function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

function postgresIds(): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

/** Stops the server and removes `dir` once the process `pid` is gone, unless `stop()` got there first. */
function startWatchdog(bin: string, dir: string, pid: number): void {
  const stop = `${shellQuote(join(bin, 'pg_ctl'))} -D ${shellQuote(join(dir, 'data'))} -m immediate -w stop`;
  const asOwner = isRoot() ? `su postgres -s /bin/sh -c ${shellQuote(stop)}` : stop;
  const script =
    `while kill -0 ${pid} 2>/dev/null && [ -d ${shellQuote(dir)} ]; do sleep 1; done; ` +
    `[ -d ${shellQuote(dir)} ] && { ${asOwner} >/dev/null 2>&1; rm -rf ${shellQuote(dir)}; }`;
  spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' }).unref();
}

/** A test server's settings: no durability (see the file comment), room for several replicas' pools. */
const TEST_SETTINGS: Record<string, string> = { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off', max_connections: '200' };

/**
 * Starts a fresh server (see the file comment). Fails with the server's log when it does not start.
 * `settings` override the test settings (the benchmarks turn durability back on).
 */
export async function startPostgres(options: { settings?: Record<string, string> } = {}): Promise<PostgresServer> {
  const availability = postgresAvailability();
  if (!availability.available) throw new Error(`cannot start PostgreSQL: ${availability.reason}`);
  const { bin } = availability;
  const dir = mkdtempSync(join(tmpdir(), 'agent-bridge-pg-'));
  if (isRoot()) {
    const { uid, gid } = postgresIds();
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  const host = '127.0.0.1';
  let port = 0;
  try {
    runBinary(bin, 'initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync', '--no-instructions']);
    startWatchdog(bin, dir, process.pid);
    // A port held for this process (no other test is given it); something outside the tests could still hold it: try a few.
    for (let attempt = 1; ; attempt++) {
      port = await reservedPort();
      const settings = Object.entries({ ...TEST_SETTINGS, ...options.settings }).map(([name, value]) => `-c ${name}=${value}`);
      const serverOptions = [`-p ${port}`, `-k ${dir}`, `-c listen_addresses=${host}`, ...settings].join(' ');
      try {
        runBinary(bin, 'pg_ctl', ['-D', data, '-o', serverOptions, '-l', join(dir, 'log'), '-w', '-t', '30', 'start']);
        break;
      } catch (error) {
        if (attempt >= 3) throw error;
      }
    }
  } catch (error) {
    const log = existsSync(join(dir, 'log')) ? readFileSync(join(dir, 'log'), 'utf8').slice(-2000) : '';
    const output = (error as { stderr?: Buffer }).stderr?.toString() ?? '';
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`PostgreSQL did not start: ${(error as Error).message}\n${output}\n${log}`, { cause: error });
  }

  const url = (database: string) => `postgres://postgres@${host}:${port}/${database}`;
  const admin = async <T extends pg.QueryResultRow>(sql: string, params: unknown[] = []) => {
    const client = new pg.Client({ connectionString: url('postgres') });
    await client.connect();
    try {
      return await client.query<T>(sql, params);
    } finally {
      await client.end();
    }
  };
  let counter = 0;
  let stopped = false;
  return {
    host,
    port,
    url,
    admin,
    async createDatabase(options = {}) {
      const name = options.name ?? `test_${process.pid}_${++counter}`;
      const template = options.template ? ` TEMPLATE ${pg.escapeIdentifier(options.template)}` : '';
      await admin(`CREATE DATABASE ${pg.escapeIdentifier(name)}${template} STRATEGY FILE_COPY`);
      return url(name);
    },
    stop() {
      if (stopped) return Promise.resolve();
      stopped = true;
      try {
        runBinary(bin, 'pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      return Promise.resolve();
    },
  };
}
