import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { openSqliteStore } from '../../src/store/sqlite-store.js';
import { tempDir } from '../helpers/spawn-cli.js';
import { BridgePool, seededRandom, sleep, stressSeed } from './crash-harness.js';
import { expectEverySlotOnce } from './schedule-checks.js';

/*
 * Schedules with real processes: two services on one SQLite file fire a schedule every second; one of
 * them is SIGKILLed at a seeded random moment and restarted. Every slot from the first fire to the last
 * is recorded once, every fired slot has exactly one run, and no fire is left unfinished.
 */

const API_KEY = 'schedules-processes-key-0123456789';
const SEED = stressSeed();
let emulator: RunningEmulator;
let pool: BridgePool;
let cwd: string;

beforeAll(async () => {
  emulator = await startEmulator({ apiKey: API_KEY, port: 0, manual: true });
  cwd = tempDir();
  writeFileSync(
    join(cwd, 'agent-bridge.yml'),
    ['tracker:', '  interval: 1s', 'schedules:', '  - name: every-second', '    cron: "* * * * * *"', '    prompt: Say hello.', '    overlap: allow', ''].join(
      '\n',
    ),
  );
  pool = new BridgePool({
    size: 2,
    cwd,
    env: {
      AGENT_API_BASE_URL: emulator.baseUrl,
      AGENT_API_KEY: API_KEY,
      DATABASE_PATH: join(cwd, 'bridge.db'),
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      LEASE_MS: '1500',
    },
  });
});
afterAll(async () => {
  await pool.killAll();
  await emulator.close();
});

it('two processes on one database fire each slot once, also when one is killed mid-way', async () => {
  const random = seededRandom(SEED);
  // Both at once on a new database file (the WAL switch waits for the other process).
  await Promise.all([pool.start(0), pool.start(1)]);
  await sleep(2_000 + random() * 2_000);
  await pool.kill(random() < 0.5 ? 0 : 1);
  await sleep(1_500);
  const restarted = pool.slots.findIndex((slot) => slot.url === undefined);
  await pool.start(restarted);
  await sleep(3_000);
  await pool.stopAll();

  const store = openSqliteStore({ path: join(cwd, 'bridge.db') });
  try {
    const figures = await expectEverySlotOnce(store, emulator, 'every-second');
    console.log(
      `[schedules-processes] seed ${SEED}: ${figures.fired} slots fired by 2 processes (one killed and restarted), ${figures.runs} runs, ${figures.missedOrSkipped} missed or skipped`,
    );
  } finally {
    await store.close();
  }
}, 60_000);
