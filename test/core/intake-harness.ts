import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { AgentApiClient } from '../../src/agent-api/index.js';
import { TestClock } from '../../src/core/ports/clock.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite-store.js';
import { IntakeWorker, type IntakeOptions } from '../../src/core/intake/intake-worker.js';
import { silentLogger } from '../../src/core/ports/logger.js';
import { testSurfaces } from '../helpers/surfaces.js';

/** What the intake's unit tests work against; `store` and `clock` are new for every test. */
export interface IntakeWorld {
  /** The run-API emulator in manual mode (runs move only when a test moves them), one per file. */
  emulator: RunningEmulator;
  /** A run-API client for `apiKey` that never sleeps between retries. */
  client: AgentApiClient;
  /** A fresh SQLite store in memory. */
  store: SqliteStore;
  clock: TestClock;
}

export interface IntakeWorldOptions {
  /** Where each test's clock starts (default: TestClock's own start). */
  clockStart?: number;
  /** Reset the emulator after each test: its runs, faults and refused keys (default false). */
  resetEach?: boolean;
}

/**
 * Registers the hooks of the intake tests' world — the emulator and its client for the file, a store
 * and a test clock for each test — and returns it (its fields are set once the hooks have run).
 */
export function useIntakeWorld(apiKey: string, options: IntakeWorldOptions = {}): IntakeWorld {
  const world = {} as IntakeWorld;
  beforeAll(async () => {
    world.emulator = await startEmulator({ apiKey, port: 0, manual: true });
    world.client = new AgentApiClient({ baseUrl: world.emulator.baseUrl, apiKey, sleep: async () => {} });
  });
  afterAll(async () => {
    await world.client.close();
    await world.emulator.close();
  });
  beforeEach(() => {
    world.store = openSqliteStore({ path: ':memory:' });
    world.clock = new TestClock(...(options.clockStart === undefined ? [] : [options.clockStart]));
  });
  afterEach(async () => {
    await world.store.close();
    if (options.resetEach) await fetch(`${world.emulator.url}/_emulator/reset`, { method: 'POST' });
  });
  return world;
}

/** An intake worker on the world's store, client and clock: every start to `env_main`, no surface's places, no log. */
export function worldWorker(world: IntakeWorld, owner: string, options: IntakeOptions = { retryWindowMs: 60_000 }): IntakeWorker {
  return new IntakeWorker({
    store: world.store,
    runs: world.client,
    clock: world.clock,
    logger: silentLogger,
    routing: { defaults: { config: { environment_id: 'env_main' } }, schedules: {} },
    surfaces: testSurfaces({}),
    owner,
    options,
  });
}
