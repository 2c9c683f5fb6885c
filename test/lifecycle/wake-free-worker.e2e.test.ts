import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentRuns } from '../../src/core/ports/agent-runs.js';
import { TestClock } from '../../src/core/ports/clock.js';
import { referenceLine } from '../../src/core/ports/triggers.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import type { RunningService } from '../../src/main.js';
import { RecordingNotifier } from '../core/recording-notifier.js';
import { cliStart, withCreateRun } from '../helpers/cli-triggers.js';
import { startBridge } from '../helpers/start-bridge.js';
import { until } from '../helpers/until.js';

/*
 * A wake-up reaches a free worker. Only the first loop of a chain polls, so a
 * trigger stored while that loop waits on a slow run-API call must be taken by another worker at once,
 * not after the slow call; and one stored in the slow trigger's own thread must be worked as soon as
 * that one is done. The service runs on a test clock that is never moved: no poll runs, so these can
 * only be worked through wake-ups.
 */
const API_KEY = 'wake-free-worker-key-0123456789';
let emulator: RunningEmulator;
let service: RunningService;
let release = () => {};
const gate = new Promise<void>((resolve) => (release = resolve));
const creating = new Set<string>();

/** Creates whose prompt starts with "slow" wait for `release`. */
function slowCreates(runs: AgentRuns): AgentRuns {
  return withCreateRun(runs, async (request, original) => {
    const name = request.prompt.split('\n')[0] ?? '';
    creating.add(name);
    try {
      if (name.startsWith('slow')) await gate;
      return await original.createRun(request);
    } finally {
      creating.delete(name);
    }
  });
}

const start = (key: string, prompt: string) => cliStart(key, prompt);
const runsOf = (key: string) => emulator.engine.list({}).runs.filter((run) => run.prompt?.includes(referenceLine(key)));

beforeAll(async () => {
  emulator = await startEmulator({ apiKey: API_KEY, port: 0, manual: true });
  ({ service } = await startBridge({
    agentApi: { baseUrl: emulator.baseUrl, apiKey: API_KEY },
    clock: new TestClock(Date.now()),
    overrides: { notifiers: [new RecordingNotifier('test')], wrapAgentRuns: slowCreates },
  }));
});
afterAll(async () => {
  release();
  await service.stop();
  await emulator.close();
});

describe('a wake-up while a worker waits on the run API', () => {
  it('goes to a free worker: the second trigger is worked while the first create still waits', async () => {
    await service.intake.submit(start('slow-one', 'slow request'));
    await until(() => creating.has('slow request'), 'the slow create to be in flight');

    await service.intake.submit(start('quick-one', 'quick request'));
    await until(() => runsOf('quick-one').length === 1, 'the second trigger to be worked, without any poll');
    expect(creating.has('slow request')).toBe(true);

    // A second request in the slow one's thread waits for it (one thread, in order): its wake-up finds nothing.
    await service.intake.submit({ ...start('slow-two', 'second request in the slow thread'), anchor: 'test:slow-one' });
    await until(async () => (await service.store.triggers.getByKey('slow-two'))?.state === 'pending', 'the second request stored');

    release();
    await until(() => runsOf('slow-one').length === 1, 'the slow trigger to be worked once released');
    // Worked as soon as the first is done, by the worker that finished it — still without a poll.
    await until(() => runsOf('slow-two').length === 1, 'the thread’s second request to be worked right after the first');
    await until(async () => (await service.store.triggers.countByState()).done === 3, 'every trigger done');
    expect(runsOf('quick-one')).toHaveLength(1);
  });
});
