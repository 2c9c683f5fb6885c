import { describe, it } from 'vitest';
import { useCrashBurst } from './crash-burst-scenario.js';
import { SCENARIO_TIMEOUT_MS } from './promises.js';

/*
 * Crashes under load, on one SQLite file. A burst of 200 Slack mentions
 * while the service (real child processes) is SIGKILLed at seeded random moments and restarted; at the
 * end every mention has exactly one run, one status message and each BLOCKED / end state announced
 * once (test/stress/crash-burst-scenario.ts says how, crash-burst-checks.ts what is counted).
 * The PostgreSQL replicas run the same scenario in postgres-crash-burst.e2e.test.ts.
 *
 * Replay a failure with the seed it printed: STRESS_SEED=<seed> npx vitest run test/stress/crash-burst.e2e.test.ts
 */

const crashBurst = useCrashBurst();

describe('a burst of Slack mentions while the service is SIGKILLed and restarted on its database', () => {
  it('one process, killed 4 times: one run per mention, every state announced once', { timeout: SCENARIO_TIMEOUT_MS }, async () => {
    await crashBurst({ label: 'one process', processes: 1, kills: 4, database: { kind: 'sqlite' } });
  });

  it('two processes on one SQLite file, killed 3 times one at a time: still exactly once', { timeout: SCENARIO_TIMEOUT_MS }, async () => {
    await crashBurst({ label: 'two processes', processes: 2, kills: 3, database: { kind: 'sqlite' } });
  });
});
