/**
 * The fixtures of the burst suites (crash-burst-scenario.ts and the suites built on it): the fake Slack
 * Web API, the run-API emulator with short timings, and a pool of real service processes on a SQLite
 * file or a PostgreSQL database, everything cleaned up after each test.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { Store } from '../../src/core/ports/store.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { openSqliteStore } from '../../src/store/sqlite-store.js';
import { startFakeSlackApi, type FakeSlackApi } from '../fakes/slack-api.js';
import { tempDir } from '../helpers/spawn-cli.js';
import { BridgePool } from './crash-harness.js';

export const SECRET = 'stress-signing-secret-0123456789';
const BOT_TOKEN = 'xoxb-0000-1111-stress-token';
const API_KEY = 'stress-run-api-key-0123456789';

/** Where the processes keep their state: a SQLite file in the scenario's folder, or a PostgreSQL database. */
export type BurstDatabase = { kind: 'sqlite' } | { kind: 'postgres'; url: () => Promise<string> };

/** The fakes of a burst suite and the scenario's pool of services, cleaned up after each test. */
export interface BurstFixtures {
  readonly slack: FakeSlackApi;
  readonly emulator: RunningEmulator;
  /**
   * A pool of `size` services (not started) in a fresh folder on the database chosen, and how to open
   * that database for reading the books once they stopped. `leaseMs: 'default'` keeps the service's
   * own lease lengths (30 s for a trigger, 60 s for a delivery), so only liveness frees a dead one's work.
   * `yaml` replaces the config file (default: the tracker every 1 s); `env` is added to the processes'
   * environment (e.g. Linear's variables pointing at a fake Linear API).
   */
  newPool(options: {
    size: number;
    database: BurstDatabase;
    leaseMs?: number | 'default';
    yaml?: string;
    env?: Record<string, string>;
  }): Promise<{ pool: BridgePool; cwd: string; openBooks: () => Promise<Store> }>;
}

/** Registers the fakes and the cleanup hooks of a burst suite (call in a file's top level or `describe`). */
export function useBurstFixtures(): BurstFixtures {
  let slack: FakeSlackApi | undefined;
  let emulator: RunningEmulator | undefined;
  let pool: BridgePool | undefined;
  /** The scenario's working directory (database, config), removed after it. */
  let workDir: string | undefined;

  beforeAll(async () => {
    slack = await startFakeSlackApi({ token: BOT_TOKEN });
    emulator = await startEmulator({ apiKey: API_KEY, port: 0, timings: { queuedMs: 50, pendingMs: 50, claimedMs: 50, workMs: 400 } });
  });
  afterEach(async () => {
    await pool?.killAll();
    pool = undefined;
    if (workDir) rmSync(workDir, { recursive: true, force: true });
    workDir = undefined;
    emulator?.engine.reset();
    slack?.reset();
  });
  afterAll(async () => {
    await pool?.killAll();
    await emulator?.close();
    await slack?.close();
  });

  return {
    get slack() {
      if (!slack) throw new Error('the fake Slack API starts in beforeAll');
      return slack;
    },
    get emulator() {
      if (!emulator) throw new Error('the emulator starts in beforeAll');
      return emulator;
    },
    async newPool(options) {
      const cwd = tempDir('agent-bridge-stress-');
      workDir = cwd;
      writeFileSync(join(cwd, 'agent-bridge.yml'), options.yaml ?? 'tracker:\n  interval: 1s\n');
      const sqlitePath = join(cwd, 'bridge.db');
      const postgresUrl = options.database.kind === 'postgres' ? await options.database.url() : undefined;
      const database: Record<string, string> = postgresUrl === undefined ? { DATABASE_PATH: sqlitePath } : { DATABASE_URL: postgresUrl };
      pool = new BridgePool({
        size: options.size,
        cwd,
        env: {
          AGENT_API_BASE_URL: this.emulator.baseUrl,
          AGENT_API_KEY: API_KEY,
          SLACK_BOT_TOKEN: BOT_TOKEN,
          SLACK_SIGNING_SECRET: SECRET,
          SLACK_API_URL: this.slack.url,
          ...database,
          PORT: '0',
          HOST: '127.0.0.1',
          // info: the children's logs say when a crashed create was adopted (counted in the summary).
          LOG_LEVEL: 'info',
          LEASE_MS: String(options.leaseMs ?? 3000),
          ...options.env,
        },
      });
      const openBooks = (): Promise<Store> =>
        postgresUrl === undefined ? Promise.resolve(openSqliteStore({ path: sqlitePath })) : openPostgresStore({ url: postgresUrl });
      return { pool, cwd, openBooks };
    },
  };
}
