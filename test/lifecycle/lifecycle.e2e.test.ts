import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import type { RunningService } from '../../src/main.js';
import { RecordingNotifier } from '../core/recording-notifier.js';
import { cliStart } from '../helpers/cli-triggers.js';
import { startBridge } from '../helpers/start-bridge.js';

/*
 * The whole lifecycle through the real server on a temp database: a trigger is fed through the core
 * as an integration will, and every observed state reaches the (recording) destination exactly once.
 */

const API_KEY = 'lifecycle-key-0123456789';
const DESTINATION = 'test:thread-1';
let emulator: RunningEmulator;
let service: RunningService;
const notifier = new RecordingNotifier('test');

beforeAll(async () => {
  emulator = await startEmulator({ apiKey: API_KEY, port: 0, manual: true });
  ({ service } = await startBridge({
    agentApi: { baseUrl: emulator.baseUrl, apiKey: API_KEY },
    yaml: 'tracker:\n  interval: 1s\n',
    overrides: { notifiers: [notifier] },
  }));
});
afterAll(async () => {
  await service.stop();
  await emulator.close();
});

const delivered = () => notifier.delivered.map((call) => call.message);
const states = (kind: 'status' | 'announce') => delivered().flatMap((message) => (message.kind === kind ? [message.run.state] : []));

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; delivered: ${JSON.stringify(delivered())}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('a trigger through the running service', () => {
  it('announces every observed state exactly once, and a revived run its second end', async () => {
    const trigger = cliStart('lifecycle-1', 'Ship it', DESTINATION);
    expect(await service.intake.submit(trigger)).toMatchObject({ accepted: true });
    expect(await service.intake.submit(trigger)).toMatchObject({ accepted: false });
    await until(() => states('status').includes('QUEUED'), 'the first status');
    const [run] = emulator.engine.list({}).runs;
    const runId = run!.run_id;

    for (const state of ['INPROGRESS', 'BLOCKED', 'INPROGRESS', 'SUCCEEDED']) {
      emulator.engine.drive(runId, state);
      await until(() => states('status').at(-1) === state, `the ${state} status`);
    }
    await until(() => states('announce').includes('SUCCEEDED'), 'the SUCCEEDED announcement');

    await service.intake.submit({ kind: 'followup', key: 'lifecycle-2', source: 'cli', anchor: DESTINATION, payload: { message: 'one more thing' } });
    await until(() => delivered().some((message) => message.kind === 'followup_accepted'), 'the follow-up acknowledgement');
    emulator.engine.drive(runId, 'INPROGRESS');
    await until(() => states('status').at(-1) === 'INPROGRESS', 'the revived INPROGRESS');
    emulator.engine.drive(runId, 'SUCCEEDED');
    await until(() => states('announce').length === 3, 'the second SUCCEEDED announcement');

    expect(delivered().filter((message) => message.kind === 'received')).toHaveLength(1);
    expect(states('status')).toEqual(['QUEUED', 'INPROGRESS', 'BLOCKED', 'INPROGRESS', 'SUCCEEDED', 'INPROGRESS', 'SUCCEEDED']);
    expect(states('announce')).toEqual(['BLOCKED', 'SUCCEEDED', 'SUCCEEDED']);
    const keys = notifier.delivered.map((call) => call.key);
    expect(new Set(keys).size).toBe(keys.length);
    expect(emulator.engine.list({}).runs).toHaveLength(1);
  });
});
