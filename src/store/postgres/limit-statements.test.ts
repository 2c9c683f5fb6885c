import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CapturingLogger } from '../../../test/core/capturing-logger.js';
import { postgresSkipNote, requirePostgres, startPostgres, type PostgresServer } from '../../../test/helpers/postgres-server.js';
import { testSurfaces } from '../../../test/helpers/surfaces.js';
import { AgentApiClient } from '../../agent-api/index.js';
import { IntakeService } from '../../core/intake/intake-service.js';
import { IntakeWorker } from '../../core/intake/intake-worker.js';
import { TestClock } from '../../core/ports/clock.js';
import type { Limits } from '../../core/ports/store.js';
import type { TriggerInput } from '../../core/ports/triggers.js';
import { startEmulator, type RunningEmulator } from '../../emulator/index.js';
import { openPostgresStore, type PostgresStore } from './postgres-store.js';

/*
 * What the limit check costs a start on PostgreSQL: exactly one statement — the
 * reservation — counted around node-postgres's Client.query while one start is worked, with limits
 * and without, on the same database. Without any limit it costs none.
 */
const runs = requirePostgres('limit check statements');
const API_KEY = 'limit-statements-key';

describe.skipIf(!runs)(`the limit check's statements on PostgreSQL${postgresSkipNote()}`, () => {
  let server: PostgresServer;
  let store: PostgresStore;
  let emulator: RunningEmulator;
  let client: AgentApiClient;
  const clock = new TestClock(Date.UTC(2026, 10, 27, 12));
  let sent = 0;
  const query = Object.getOwnPropertyDescriptor(pg.Client.prototype, 'query')?.value as (...args: unknown[]) => unknown;

  beforeAll(async () => {
    server = await startPostgres();
    store = await openPostgresStore({ url: await server.createDatabase(), poolSize: 2 });
    emulator = await startEmulator({ apiKey: API_KEY, port: 0, manual: true });
    client = new AgentApiClient({ baseUrl: emulator.baseUrl, apiKey: API_KEY });
    pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
      sent++;
      return query.apply(this, args);
    } as typeof pg.Client.prototype.query;
  });
  afterAll(async () => {
    pg.Client.prototype.query = query as typeof pg.Client.prototype.query;
    await client?.close();
    await emulator?.close();
    await store?.close();
    await server?.stop();
  });

  const none: Limits = { concurrent: 0, perDay: 0, creditsPerMonth: 0 };

  /** Statements sent while one start (stored beforehand) is worked to its end by a worker with these limits. */
  async function statementsOfOneStart(key: string, perPerson: Limits): Promise<number> {
    const anchor = `slack:C1:${key}`;
    const start: TriggerInput = {
      kind: 'start',
      key,
      source: 'slack',
      anchor,
      payload: {
        prompt: 'Fix the flaky test',
        title: 'Fix the flaky test',
        origin: { source: 'slack', channel: 'C1' },
        destinations: [anchor],
        requester: { platform: 'slack', id: 'U1' },
      },
    };
    await new IntakeService({ store, clock }).submit(start);
    const worker = new IntakeWorker({
      store,
      runs: client,
      clock,
      logger: new CapturingLogger(),
      routing: { defaults: { config: {} }, schedules: {} },
      surfaces: testSurfaces(),
      owner: `worker-${key}`,
      options: { retryWindowMs: 60_000 },
      limits: { perPerson },
    });
    const before = sent;
    expect(await worker.drain()).toBe(1);
    expect((await store.triggers.getByKey(key))?.state).toBe('done');
    return sent - before;
  }

  it('adds exactly one statement per start with limits on, and none without', async () => {
    const without = await statementsOfOneStart('Plain1', none);
    expect(await statementsOfOneStart('Plain2', none)).toBe(without);
    const limited = { ...none, concurrent: 100, perDay: 1000, creditsPerMonth: 1e6 };
    expect(await statementsOfOneStart('Limited1', limited)).toBe(without + 1);
    expect(await statementsOfOneStart('Limited2', limited)).toBe(without + 1);
  });
});
