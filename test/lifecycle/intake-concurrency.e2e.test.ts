import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentRuns } from '../../src/core/ports/agent-runs.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { INTAKE_CONCURRENCY, type RunningService } from '../../src/main.js';
import { RecordingNotifier } from '../core/recording-notifier.js';
import { cliStart, withCreateRun } from '../helpers/cli-triggers.js';
import { startBridge } from '../helpers/start-bridge.js';
import { until } from '../helpers/until.js';

/*
 * Work keeps pace under a flood because one process works many triggers at once: creates of
 * different threads are in flight together (up to the intake concurrency), while the triggers of
 * one thread still go one at a time and in order, and every trigger gets exactly one run.
 */

const API_KEY = 'intake-concurrency-key-0123456789';
const THREADS = INTAKE_CONCURRENCY + 4;
let emulator: RunningEmulator;
let service: RunningService;
const notifier = new RecordingNotifier('test');

/** Creates wait here until released; which prompts are in flight, and the most ever at once. */
const held = {
  inFlight: new Set<string>(),
  most: 0,
  started: [] as string[],
  overlaps: [] as string[],
  release: () => {},
  gate: Promise.resolve(),
};
held.gate = new Promise<void>((resolve) => (held.release = resolve));

const firstLine = (prompt: string) => prompt.split('\n')[0] ?? '';

function holdingCreates(runs: AgentRuns): AgentRuns {
  return withCreateRun(runs, async (request, original) => {
    const name = firstLine(request.prompt);
    // Two triggers of one thread in flight together would break its order.
    if (name.startsWith('same') && [...held.inFlight].some((other) => other.startsWith('same'))) held.overlaps.push(name);
    held.inFlight.add(name);
    held.started.push(name);
    held.most = Math.max(held.most, held.inFlight.size);
    try {
      await held.gate;
      return await original.createRun(request);
    } finally {
      held.inFlight.delete(name);
    }
  });
}

const start = (key: string, anchor: string, prompt: string) => cliStart(key, prompt, anchor);

beforeAll(async () => {
  emulator = await startEmulator({ apiKey: API_KEY, port: 0, manual: true });
  ({ service } = await startBridge({
    agentApi: { baseUrl: emulator.baseUrl, apiKey: API_KEY },
    overrides: { notifiers: [notifier], wrapAgentRuns: holdingCreates },
  }));
});
afterAll(async () => {
  held.release();
  await service.stop();
  await emulator.close();
});

describe('intake under a burst of triggers', () => {
  it('works triggers of different threads at once, one thread in order, each once', async () => {
    const triggers = [
      start('same-1', 'test:same', 'same 1'),
      ...Array.from({ length: THREADS }, (_, index) => start(`thread-${index}`, `test:thread-${index}`, `thread ${index}`)),
      start('same-2', 'test:same', 'same 2'),
      start('same-3', 'test:same', 'same 3'),
    ];
    const submitted = await Promise.all(triggers.map((trigger) => service.intake.submit(trigger)));
    expect(submitted.every((result) => result.accepted)).toBe(true);

    await until(
      () => held.inFlight.size >= INTAKE_CONCURRENCY,
      `${INTAKE_CONCURRENCY} creates in flight at once`,
      15_000,
      () => `${held.inFlight.size} in flight`,
    );
    // Every worker holds a create: nothing more is claimed until one finishes.
    expect(INTAKE_CONCURRENCY).toBeGreaterThan(1);
    expect(held.most).toBe(INTAKE_CONCURRENCY);
    const stats = await service.store.triggers.countByState();
    expect(stats.working).toBe(INTAKE_CONCURRENCY);

    held.release();
    await until(async () => (await service.store.triggers.countByState()).done === triggers.length, 'every trigger done', 15_000);

    expect(held.overlaps).toEqual([]);
    expect(held.started.filter((name) => name.startsWith('same'))).toEqual(['same 1', 'same 2', 'same 3']);
    expect(held.most).toBe(INTAKE_CONCURRENCY);
    const runs = emulator.engine.list({ limit: 500 }).runs;
    expect(runs).toHaveLength(triggers.length);
    const prompts = runs.map((run) => firstLine(run.prompt ?? '')).sort();
    expect(prompts).toEqual(triggers.map((trigger) => (trigger.kind === 'start' ? trigger.payload.prompt : '')).sort());
  });
});
