import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { createLogger } from '../../src/log/create-logger.js';
import type { RunningService } from '../../src/main.js';
import { cliStart } from '../helpers/cli-triggers.js';
import { startBridge } from '../helpers/start-bridge.js';
import { until } from '../helpers/until.js';

/*
 * Operators filter the service's JSON lines by `component`. A line that carries the key twice (a pino
 * child of a child with the same binding) is read as one value or the other, or refused, depending
 * on who parses it: every line names its component once.
 */

const API_KEY = 'log-components-key-0123456789';
let emulator: RunningEmulator;
let service: RunningService;
const lines: string[] = [];

beforeAll(async () => {
  emulator = await startEmulator({ apiKey: API_KEY, port: 0, manual: true });
  const logger = createLogger({ level: 'debug', secrets: [], destination: { write: (line: string) => void lines.push(line) } });
  ({ service } = await startBridge({ agentApi: { baseUrl: emulator.baseUrl, apiKey: API_KEY }, yaml: 'tracker:\n  interval: 1s\n', logger }));
});
afterAll(async () => {
  await service?.stop();
  await emulator?.close();
});

const components = (line: string) => [...line.matchAll(/"component":("[^"]*")/g)].map((match) => JSON.parse(match[1] ?? '') as string);

describe("the service's log lines", () => {
  it('name their component once: the tracker’s line of a changed run, and every line of the run’s life', async () => {
    expect(await service.intake.submit(cliStart('components-1', 'Ship it', 'log:components'))).toMatchObject({ accepted: true });
    const run = await until(() => emulator.engine.list({}).runs[0], 'the run');
    emulator.engine.drive(run.run_id, 'SUCCEEDED');

    const changed = await until(() => lines.find((line) => line.includes('"msg":"run state changed"')), 'the tracker’s line');
    expect(components(changed)).toEqual(['tracker']);
    await until(() => lines.find((line) => line.includes('"kind":"announce"')), 'the announced end');
    const seen = new Set(lines.flatMap(components));
    expect([...seen]).toEqual(expect.arrayContaining(['tracker', 'log-notifier']));
    expect(lines.filter((line) => components(line).length > 1)).toEqual([]);
  });
});
