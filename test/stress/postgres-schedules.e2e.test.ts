import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { postgresSkipNote, requirePostgres, startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { tempDir } from '../helpers/spawn-cli.js';
import { BridgePool, seededRandom, sleep, stressSeed } from './crash-harness.js';
import { expectEverySlotOnce } from './schedule-checks.js';

/*
 * Schedules with three replicas on PostgreSQL. Three services (real child processes) start
 * together on a new database and fire a schedule every second; one of them, chosen by the seed, is
 * SIGKILLed at a seeded random moment and restarted. Every slot from the first fire to the last is
 * recorded once, none is left unfinished, and every fired slot has exactly one run
 * (schedule-checks.ts; the same checks as the two SQLite processes of schedules-processes.e2e.test.ts).
 *
 * Replay a failure with the seed it printed: STRESS_SEED=<seed> npx vitest run test/stress/postgres-schedules.e2e.test.ts
 */

const API_KEY = 'pg-schedules-key-0123456789';
const REPLICAS = 3;
const runs = requirePostgres('schedules with three replicas');

describe.skipIf(!runs)(`schedules with three replicas on PostgreSQL${postgresSkipNote()}`, () => {
  const seed = stressSeed();
  let server: PostgresServer;
  let emulator: RunningEmulator;
  let pool: BridgePool | undefined;

  beforeAll(async () => {
    server = await startPostgres();
    emulator = await startEmulator({ apiKey: API_KEY, port: 0, manual: true });
  });
  afterAll(async () => {
    await pool?.killAll();
    await emulator?.close();
    await server?.stop();
  });

  it('three replicas fire each slot once, also when one is killed and restarted', { timeout: 60_000 }, async () => {
    const random = seededRandom(seed);
    console.log(`[postgres-schedules] seed ${seed} (replay with STRESS_SEED=${seed})`);
    const url = await server.createDatabase();
    const cwd = tempDir();
    writeFileSync(
      join(cwd, 'agent-bridge.yml'),
      [
        'tracker:',
        '  interval: 1s',
        'schedules:',
        '  - name: every-second',
        '    cron: "* * * * * *"',
        '    prompt: Say hello.',
        '    overlap: allow',
        '',
      ].join('\n'),
    );
    pool = new BridgePool({
      size: REPLICAS,
      cwd,
      env: {
        AGENT_API_BASE_URL: emulator.baseUrl,
        AGENT_API_KEY: API_KEY,
        DATABASE_URL: url,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        LEASE_MS: '1500',
      },
    });
    const replicas = pool;
    // All at once on an empty database: one migrates under the lock, the others wait for it.
    await Promise.all([...replicas.slots.keys()].map((index) => replicas.start(index)));
    await sleep(2_000 + random() * 3_000);
    const victim = Math.floor(random() * REPLICAS);
    await replicas.kill(victim);
    await sleep(500 + random() * 1_500);
    await replicas.start(victim);
    await sleep(3_000);
    await replicas.stopAll();

    const store = await openPostgresStore({ url });
    try {
      const figures = await expectEverySlotOnce(store, emulator, 'every-second');
      console.log(
        `[postgres-schedules] seed ${seed}: ${figures.fired} slots (${figures.first}…${figures.last}) fired by ${REPLICAS} replicas (replica ${victim} killed and restarted), ` +
          `${figures.runs} runs, ${figures.missedOrSkipped} missed or skipped`,
      );
    } finally {
      await store.close();
    }
  });
});
