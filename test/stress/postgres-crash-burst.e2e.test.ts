import { afterAll, beforeAll, describe, it } from 'vitest';
import { postgresSkipNote, requirePostgres, startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { useCrashBurst } from './crash-burst-scenario.js';
import { SCENARIO_TIMEOUT_MS } from './promises.js';

/*
 * The crash suite with three replicas on PostgreSQL. Three copies of the service (real
 * child processes) start together on a new database of a throwaway PostgreSQL server and take a burst
 * of 200 Slack mentions, each delivery aimed at a random live replica as a load balancer without
 * stickiness would; replicas are SIGKILLed at seeded random moments and restarted. Same checks as the
 * SQLite crash suite (crash-burst-checks.ts): every mention has exactly one run, one status message,
 * each BLOCKED and end announced exactly once, nothing left owed or half-done in the database.
 *
 * Replay a failure with the seed it printed: STRESS_SEED=<seed> npx vitest run test/stress/postgres-crash-burst.e2e.test.ts
 */

const runs = requirePostgres('the crash suite with three replicas');

describe.skipIf(!runs)(`a burst of Slack mentions while replicas on PostgreSQL are SIGKILLed and restarted${postgresSkipNote()}`, () => {
  let server: PostgresServer | undefined;
  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(async () => {
    await server?.stop();
  });
  const crashBurst = useCrashBurst();

  it('three replicas on one database, killed 5 times: one run per mention, every state announced once', { timeout: SCENARIO_TIMEOUT_MS }, async () => {
    await crashBurst({ label: 'three replicas on PostgreSQL', processes: 3, kills: 5, database: { kind: 'postgres', url: () => server!.createDatabase() } });
  });
});
