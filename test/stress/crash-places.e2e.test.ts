import { describe, it } from 'vitest';
import { useCrashPlaces } from './crash-places-scenario.js';
import { SCENARIO_TIMEOUT_MS } from './promises.js';

/*
 * The crash suite with runs that two places carry. Runs asked for in Linear
 * (an issue gains a label whose route names `slack_channel`: the issue and a new Slack thread) and in
 * Slack (a mention naming a Linear issue with `slack.link_linear_issues: true`: the thread and the
 * issue), while the service (real child processes on one SQLite file) is SIGKILLed at seeded random
 * moments and restarted. At the end every run has exactly one run, and in each of its places one
 * status message / start comment and each BLOCKED / end state announced once, in order, naming the same
 * run (crash-places-scenario.ts says how, crash-places-checks.ts what is counted).
 *
 * Replay a failure with the seed it printed: STRESS_SEED=<seed> npx vitest run test/stress/crash-places.e2e.test.ts
 */

const crashPlaces = useCrashPlaces();

describe('runs with two places (Linear and Slack) while the service is SIGKILLed and restarted', () => {
  it('one process, killed 3 times (Slack and Linear redeliver while it is down): every state once per place', { timeout: SCENARIO_TIMEOUT_MS }, async () => {
    await crashPlaces({ label: 'one process', processes: 1, kills: 3 });
  });

  it('two processes on one SQLite file, killed 3 times: one run per request, every state once per place', { timeout: SCENARIO_TIMEOUT_MS }, async () => {
    await crashPlaces({ label: 'two processes', processes: 2, kills: 3 });
  });
});
