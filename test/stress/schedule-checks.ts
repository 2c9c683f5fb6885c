/**
 * What the schedule suites with real processes check once every process stopped (SQLite:
 * schedules-processes.e2e.test.ts; PostgreSQL replicas: postgres-schedules.e2e.test.ts): every slot
 * from the first fire to the last recorded once, none left unfinished, one trigger and exactly one run
 * per fired slot.
 */
import { expect } from 'vitest';
import { scheduleTriggerKey } from '../../src/core/schedules/schedule-definition.js';
import type { Store } from '../../src/core/ports/store.js';
import { referenceLine } from '../../src/core/ports/triggers.js';
import type { RunningEmulator } from '../../src/emulator/index.js';

export interface SlotFigures {
  /** Slots fired (a run asked for), first to last. */
  fired: number;
  /** Slots recorded as missed or skipped. */
  missedOrSkipped: number;
  runs: number;
  first: string;
  last: string;
}

/** Asserts that `schedule` (one fire a second) fired each of its slots once; returns the figures. */
export async function expectEverySlotOnce(store: Store, emulator: RunningEmulator, schedule: string): Promise<SlotFigures> {
  const fires = (await store.scheduleFires.list(schedule, 1_000)).reverse();
  const slots = fires.map((fire) => fire.slot);
  expect(new Set(slots).size, 'a slot recorded twice').toBe(slots.length);
  expect(
    fires.filter((fire) => fire.status === 'recorded'),
    'fires left unfinished',
  ).toEqual([]);
  // No slot lost between the first fire and the last (the keys are local wall times, one second apart).
  const fired = fires.filter((fire) => fire.status !== 'missed' && fire.status !== 'skipped');
  expect(fired.length, 'slots fired').toBeGreaterThan(0);
  const first = Date.parse(`${fired[0]!.slot}Z`);
  const last = Date.parse(`${fired.at(-1)!.slot}Z`);
  expect(fired.length, `slots ${fired[0]!.slot}…${fired.at(-1)!.slot}`).toBe((last - first) / 1000 + 1);
  // Each fired slot: one trigger, and exactly one run carrying its reference line.
  const runs = emulator.engine.list({ limit: 10_000 }).runs;
  for (const fire of fired) {
    const key = scheduleTriggerKey(schedule, fire.slot);
    expect(fire.triggerKey).toBe(key);
    expect(
      runs.filter((run) => run.prompt?.includes(referenceLine(key))),
      `runs of ${fire.slot}`,
    ).toHaveLength(1);
  }
  expect(runs).toHaveLength(fired.length);
  return { fired: fired.length, missedOrSkipped: fires.length - fired.length, runs: runs.length, first: fired[0]!.slot, last: fired.at(-1)!.slot };
}
