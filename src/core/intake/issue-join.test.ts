import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CapturingLogger } from '../../../test/core/capturing-logger.js';
import { AgentApiClient } from '../../agent-api/index.js';
import { startEmulator, type RunningEmulator } from '../../emulator/index.js';
import { openSqliteStore, type SqliteStore } from '../../store/sqlite-store.js';
import { TestClock } from '../ports/clock.js';
import type { IssueLinker } from '../ports/issue-links.js';
import type { Store } from '../ports/store.js';
import type { TriggerInput } from '../ports/triggers.js';
import { IntakeService } from './intake-service.js';
import { IntakeWorker } from './intake-worker.js';
import { testSurfaces } from '../../../test/helpers/surfaces.js';

/*
 * A thread that joins an issue's active run becomes one of the run's places (issue 21). The place is
 * added before the trigger is finished: a process killed right after the finish must not leave a
 * thread that was told "joined" but never hears of the run again (the finished trigger is not retried).
 */

const API_KEY = 'issue-join-test-key';
const ISSUE = 'linear:0a1b2c3d-0000-4000-8000-00000issue07';
const linker: IssueLinker = {
  lookup: async (text) =>
    text.includes('ENG-7')
      ? {
          kind: 'linked',
          issue: {
            anchor: ISSUE,
            otherAnchors: ['linear:ENG-7'],
            ref: 'ENG-7',
            title: 'Slow search',
            url: 'https://linear.app/acme/issue/ENG-7',
            context: '> ENG-7',
          },
        }
      : undefined,
};

let emulator: RunningEmulator;
let client: AgentApiClient;
let store: SqliteStore;
let clock: TestClock;

beforeAll(async () => {
  emulator = await startEmulator({ apiKey: API_KEY, port: 0, manual: true });
  client = new AgentApiClient({ baseUrl: emulator.baseUrl, apiKey: API_KEY, sleep: async () => {} });
});
afterAll(async () => {
  await client.close();
  await emulator.close();
});
beforeEach(() => {
  store = openSqliteStore({ path: ':memory:' });
  clock = new TestClock();
});
afterEach(async () => {
  await store.close();
  emulator.engine.reset();
});

const worker = (on: Store) =>
  new IntakeWorker({
    store: on,
    runs: client,
    clock,
    logger: new CapturingLogger(),
    routing: { defaults: { config: {} }, schedules: {} },
    surfaces: testSurfaces(),
    owner: 'worker-1',
    options: { retryWindowMs: 15 * 60_000 },
    issueLinkers: { slack: linker },
    random: () => 0.5,
  });

const mention = (key: string, anchor: string, prompt: string): TriggerInput => ({
  kind: 'start',
  key,
  source: 'slack',
  anchor,
  payload: {
    prompt,
    title: prompt,
    origin: { source: 'slack', channel: 'C1' },
    destinations: [anchor],
    requester: { platform: 'slack', id: 'U1', name: 'ada' },
  },
});

/** The store of a process SIGKILLed right after a trigger is finished (nothing after the finish happens). */
function killedAfterFinish(real: SqliteStore): Store {
  const triggers = Object.create(real.triggers, {
    finish: {
      value: async (...args: Parameters<Store['triggers']['finish']>) => {
        await real.triggers.finish(...args);
        throw new Error('SIGKILL right after the finish');
      },
    },
  }) as Store['triggers'];
  return Object.create(real, { triggers: { value: triggers } }) as Store;
}

describe('a thread joining an issue’s active run', () => {
  it('is one of the run’s places even when the process dies right after the trigger is finished', async () => {
    const intake = new IntakeService({ store, clock });
    await intake.submit(mention('Ev1', 'slack:C1:1700.1', 'ENG-7 make search faster'));
    expect(await worker(store).drain()).toBe(1);
    const [run] = emulator.engine.list({}).runs;
    expect(run).toBeDefined();

    await intake.submit(mention('Ev2', 'slack:C2:1700.2', 'ENG-7 and cache the results'));
    await expect(worker(killedAfterFinish(store)).drain()).rejects.toThrow(/SIGKILL/);
    expect((await store.triggers.getByKey('Ev2'))?.state).toBe('done');
    expect(emulator.engine.list({}).runs).toHaveLength(1);
    expect(
      emulator.engine
        .followups(run!.run_id)
        .map((followup) => followup.message)
        .join('\n'),
    ).toContain('cache the results');
    expect((await store.trackedRuns.get(run!.run_id))?.destinations).toEqual(['slack:C1:1700.1', ISSUE, 'slack:C2:1700.2']);
  });
});
