import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { appliedMigrations } from '../../src/store/migrate.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { nodeArgsFor } from '../helpers/child-programs.js';
import { ROOT, tempDir } from '../helpers/spawn-cli.js';
import type { OpenReport } from './open-child.js';

/*
 * Two replicas started at the same moment on a database file that does not exist yet (a fresh
 * deployment, docs/architecture.md §5: work that must happen once is claimed through the store, also by two processes on one SQLite file): both must
 * open it. Each round, PROCESSES children open the same new file at the same millisecond.
 */

const CHILD = join(ROOT, 'test/stress/open-child.ts');
const PROCESSES = 4;
const ROUNDS = 100;
const children: ChildProcess[] = [];

const dirs: string[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function start(dir: string) {
  // stdin open (spawnTs ignores it): the child waits there for the common start time.
  const child = spawn(process.execPath, [...nodeArgsFor(CHILD), dir, String(ROUNDS)], {
    cwd: dir,
    env: { PATH: process.env['PATH'], HOME: process.env['HOME'], NODE_ENV: 'test' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(child);
  child.stdin?.on('error', () => {});
  let stdout = '';
  let stderr = '';
  let markReady = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    if (stdout.startsWith('ready\n')) markReady();
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const done = new Promise<OpenReport>((resolve, reject) => {
    child.once('close', (code) => {
      const last = stdout.trim().split('\n').at(-1) ?? '';
      if (code !== 0 || !last.startsWith('{')) reject(new Error(`open child exited ${code}: ${stderr}`));
      else resolve(JSON.parse(last) as OpenReport);
    });
  });
  done.catch(() => markReady());
  return { child, ready, done };
}

describe('processes opening one new database file at the same moment', () => {
  it('all open it: setting WAL mode waits for the others instead of failing with "database is locked"', { timeout: 30_000 }, async () => {
    const dir = tempDir('agent-bridge-open-');
    dirs.push(dir);
    const started = Array.from({ length: PROCESSES }, () => start(dir));
    await Promise.all(started.map((s) => s.ready));
    const goAt = Date.now() + 200;
    for (const s of started) s.child.stdin?.end(`go ${goAt}\n`);
    const reports = await Promise.all(started.map((s) => s.done));
    const errors = reports.flatMap((report) => report.errors.map((error) => `pid ${report.pid} round ${error.round}: ${error.error}`));
    expect(errors).toEqual([]);
    // And every file ended up as it should: WAL, each migration applied once.
    for (let round = 0; round < ROUNDS; round++) {
      const db = new Database(join(dir, `db-${round}.db`), { readonly: true });
      try {
        expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
        expect(appliedMigrations(db).map((m) => m.id)).toEqual(MIGRATIONS.map((m) => m.id).sort((a, b) => a - b));
      } finally {
        db.close();
      }
    }
  });
});
