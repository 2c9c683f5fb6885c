/**
 * The services under test as separate processes (bench/service-child.ts), all on one database: one
 * process on a fresh SQLite file, or 1–3 replicas on a fresh PostgreSQL database of the bench's own
 * throwaway server (test/helpers/postgres-server.ts). The bench process then holds no service: it
 * only drives the load and reads progress from the database (`progress`), like an operator would.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Store } from '../src/core/ports/store.js';
import { openPostgresStore } from '../src/store/postgres/postgres-store.js';
import { openSqliteStore } from '../src/store/sqlite-store.js';
import { startPostgres, type PostgresServer } from '../test/helpers/postgres-server.js';
import { JIRA_EMAIL, JIRA_SECRET, JIRA_TOKEN, RUN_API_KEY, SLACK_SECRET, SLACK_TOKEN } from './bench-service.js';
import type { WorldUrls } from './outside.js';
import { sleep } from './report.js';
import type { SentStatements } from './service-child.js';

export type { SentStatements } from './service-child.js';

const ROOT = resolve(import.meta.dirname, '..');
const TSX_LOADER = pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;
const START_TIMEOUT_MS = 30_000;

export type Engine = 'sqlite' | 'postgres';

export interface Replica {
  url: string;
  /** CPU (user + system) the replica has used since it started, in ms. */
  cpuMs(): Promise<number>;
  /** What it has sent PostgreSQL since it started (zeros on SQLite). */
  statements(): Promise<SentStatements>;
}

export interface ReplicaSet {
  engine: Engine;
  replicas: Replica[];
  urls: string[];
  /** What the replicas' background work has done by now, read from their shared database. */
  progress(): Promise<Progress>;
  /** Total CPU of every replica since it started, ms. */
  cpuMs(): Promise<number>;
  /** What every replica together has sent PostgreSQL since it started. */
  statements(): Promise<SentStatements>;
  stop(): Promise<void>;
}

export interface Progress {
  /** Triggers stored (every state). */
  stored: number;
  /** Triggers finished (done, failed or ignored): the run created (or the request answered otherwise). */
  worked: number;
  /** Outbox rows delivered, and still owed. */
  sent: number;
  owed: number;
}

/**
 * PostgreSQL as an installation gets it (fsync, full page writes and synchronous commits on), not the
 * tests' throwaway settings. SQLite runs with `synchronous = NORMAL` (a commit does not wait for the
 * disk), so this favours SQLite; BENCH_PG_SYNCHRONOUS_COMMIT=off gives PostgreSQL the same guarantee.
 */
export const PG_SETTINGS = {
  fsync: 'on',
  full_page_writes: 'on',
  synchronous_commit: process.env['BENCH_PG_SYNCHRONOUS_COMMIT'] ?? 'on',
  max_connections: '200',
};

/** The bench's PostgreSQL server, started on first use and stopped by `stopBenchPostgres`. */
let postgres: Promise<PostgresServer> | undefined;
export const benchPostgres = (): Promise<PostgresServer> => (postgres ??= startPostgres({ settings: PG_SETTINGS }));
export async function stopBenchPostgres(): Promise<void> {
  const server = postgres;
  postgres = undefined;
  if (server) await (await server).stop();
}

/** A fresh database: a new SQLite file (under BENCH_DB_DIR when set), or a new PostgreSQL database. */
async function freshDatabase(engine: Engine, dir: string): Promise<{ env: Record<string, string>; open: () => Promise<Store> }> {
  if (engine === 'sqlite') {
    const path = join(dir, 'bench.db');
    return { env: { DATABASE_PATH: path }, open: () => Promise.resolve(openSqliteStore({ path })) };
  }
  const url = await (await benchPostgres()).createDatabase();
  return { env: { DATABASE_URL: url }, open: () => openPostgresStore({ url, poolSize: 2 }) };
}

function startChild(name: string, env: Record<string, string>, cwd: string): { child: ChildProcess; ready: Promise<string> } {
  const profileDir = process.env['BENCH_CPU_PROF'];
  // One file per thread (tsx's loader has its own): CPU.<date>.<time>.<pid>.<thread>.<n>.cpuprofile.
  const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const child = fork(join(ROOT, 'bench/service-child.ts'), [name], {
    cwd,
    // Only what the service needs: nothing from the bench's own environment reaches its config.
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...env },
    execArgv: ['--import', TSX_LOADER, ...profile],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = new Promise<string>((resolveReady, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not listen within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
    child.on('message', (message: { ready?: string; failed?: string }) => {
      if (message.ready === undefined && message.failed === undefined) return;
      clearTimeout(timer);
      if (message.ready !== undefined) resolveReady(message.ready);
      else reject(new Error(`${name} failed to start: ${message.failed}`));
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code ?? signal}) before it listened`));
    });
  });
  return { child, ready };
}

/** Asks a replica over IPC (bench/service-child.ts); undefined when it is gone. */
function ask<K extends 'cpuMs' | 'statements'>(child: ChildProcess, op: 'cpu' | 'statements', field: K): Promise<ChildAnswer[K] | undefined> {
  return new Promise((resolveAnswer) => {
    if (!child.connected) return resolveAnswer(undefined);
    const id = Math.random();
    const onMessage = (message: ChildAnswer & { id?: number }) => {
      if (message.id !== id) return;
      child.off('message', onMessage);
      resolveAnswer(message[field]);
    };
    child.on('message', onMessage);
    child.send({ id, op });
  });
}
type ChildAnswer = { cpuMs?: number; statements?: SentStatements };

const NO_STATEMENTS: SentStatements = { statements: Number.NaN, triggerClaims: Number.NaN, outboxClaims: Number.NaN };
const addStatements = (a: SentStatements, b: SentStatements): SentStatements => ({
  statements: a.statements + b.statements,
  triggerClaims: a.triggerClaims + b.triggerClaims,
  outboxClaims: a.outboxClaims + b.outboxClaims,
});

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  if (child.connected) child.disconnect();
  // A backlog being worked when the bench stops: the service finishes its passes in flight, then exits.
  const gone = await Promise.race([exited.then(() => true), sleep(10_000).then(() => false)]);
  if (!gone) {
    child.kill('SIGKILL');
    await exited;
  }
}

/**
 * Starts `count` replicas of the service with Slack over HTTP (the world's fakes and emulator) — and
 * Jira with `jira.labels.agent` when the world has a fake Jira — on one fresh database, and opens the
 * bench's own connection to that database to read progress.
 */
export async function startReplicas(
  engine: Engine,
  count: number,
  world: WorldUrls,
  label = `${engine}-${count}`,
  /** The replicas' agent-bridge.yml (their working directory's); absent: none, every default. */
  yaml?: string,
): Promise<ReplicaSet> {
  const base = process.env['BENCH_DB_DIR'] ?? tmpdir();
  mkdirSync(base, { recursive: true });
  const dir = mkdtempSync(join(base, `agent-bridge-bench-${label}-`));
  if (yaml !== undefined) writeFileSync(join(dir, 'agent-bridge.yml'), yaml);
  const database = await freshDatabase(engine, dir);
  const env = {
    ...database.env,
    AGENT_API_BASE_URL: world.emulatorBaseUrl,
    AGENT_API_KEY: RUN_API_KEY,
    SLACK_BOT_TOKEN: SLACK_TOKEN,
    SLACK_SIGNING_SECRET: SLACK_SECRET,
    SLACK_API_URL: world.slackUrl,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'error',
    ...(world.jiraUrl !== undefined && { JIRA_BASE_URL: world.jiraUrl, JIRA_EMAIL, JIRA_API_TOKEN: JIRA_TOKEN, JIRA_WEBHOOK_SECRET: JIRA_SECRET }),
  };
  if (world.jiraUrl !== undefined) writeFileSync(join(dir, 'agent-bridge.yml'), 'jira:\n  labels:\n    agent: {}\n');
  const children: ChildProcess[] = [];
  let store: Store | undefined;
  const stop = async () => {
    await Promise.all(children.map(stopChild));
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    // One after the other on SQLite (one file); at once on PostgreSQL, as replicas of a deployment start.
    const urls: string[] = [];
    if (engine === 'sqlite') {
      for (let index = 0; index < count; index++) {
        const started = startChild(`${label}-${index}`, env, dir);
        children.push(started.child);
        urls.push(await started.ready);
      }
    } else {
      const started = Array.from({ length: count }, (_, index) => startChild(`${label}-${index}`, env, dir));
      children.push(...started.map((s) => s.child));
      urls.push(...(await Promise.all(started.map((s) => s.ready))));
    }
    store = await database.open();
    const opened = store;
    const replicas = children.map((child, index) => ({
      url: urls[index] as string,
      cpuMs: async () => (await ask(child, 'cpu', 'cpuMs')) ?? Number.NaN,
      statements: async () => (await ask(child, 'statements', 'statements')) ?? NO_STATEMENTS,
    }));
    return {
      engine,
      replicas,
      urls,
      async progress() {
        const triggers = await opened.triggers.countByState();
        const outbox = await opened.outbox.counts();
        const stored = Object.values(triggers).reduce((sum, n) => sum + n, 0);
        return { stored, worked: triggers.done + triggers.failed + triggers.ignored, sent: outbox.sent, owed: outbox.pending + outbox.sending };
      },
      async cpuMs() {
        return (await Promise.all(replicas.map((replica) => replica.cpuMs()))).reduce((sum, ms) => sum + ms, 0);
      },
      async statements() {
        return (await Promise.all(replicas.map((replica) => replica.statements()))).reduce(addStatements, { statements: 0, triggerClaims: 0, outboxClaims: 0 });
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
