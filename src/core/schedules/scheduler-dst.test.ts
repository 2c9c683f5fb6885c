import { afterEach, describe, expect, it, vi } from 'vitest';
import { CapturingLogger } from '../../../test/core/capturing-logger.js';
import { cronCalendar } from '../../cron-calendar/cron-calendar.js';
import { openSqliteStore, type SqliteStore } from '../../store/sqlite-store.js';
import { AgentApiError, type RunItem } from '../ports/agent-runs.js';
import { systemClock } from '../ports/clock.js';
import type { RunLookup, TriggerSubmitter } from './schedule-fire.js';
import type { ScheduleDefinition } from './schedule-definition.js';
import { Scheduler } from './scheduler.js';
import type { TriggerInput } from '../ports/triggers.js';

/*
 * Daylight-saving changes end to end through the real parts: the Scheduler with the real cron
 * calendar, the system clock and timers (vitest's fake timers move Date and setTimeout), an
 * in-memory SQLite store. The submitter notes the instant each trigger is submitted: that is
 * when the schedule fired. docs/architecture.md §6: a skipped local time fires once right after the gap, a
 * repeated one fires once.
 */

const DAY = 86_400_000;

/** Records `new Date().toISOString()` for every submitted trigger. */
class RecordingSubmitter implements TriggerSubmitter {
  readonly fired: string[] = [];
  readonly keys: string[] = [];
  async submit(input: TriggerInput): Promise<{ accepted: boolean }> {
    this.fired.push(new Date().toISOString());
    this.keys.push(input.key);
    return { accepted: true };
  }
}

/** No run ever exists: `overlap` never holds a fire back. */
const noRuns: RunLookup = {
  getRun: async (runId): Promise<RunItem> => {
    throw new AgentApiError(`unknown run ${runId}`, { kind: 'not_found', status: 404, retryable: false });
  },
};

let store: SqliteStore | undefined;
let scheduler: Scheduler | undefined;
afterEach(async () => {
  await scheduler?.stop();
  await store?.close();
  scheduler = undefined;
  store = undefined;
  vi.useRealTimers();
});

function schedule(name: string, cron: string, timezone: string): ScheduleDefinition {
  return {
    name,
    calendar: cronCalendar(cron, timezone),
    prompt: `Scheduled ${name}`,
    overlap: 'allow',
    catchUp: 'none',
    enabled: true,
    pauseAfterFailures: 0,
    notify: {},
  };
}

/**
 * Starts the real Scheduler at `start` with fake timers, lets `days` pass, and returns the instants
 * the schedule fired (UTC ISO strings) and the slot keys of the triggers.
 */
async function firesAcross(def: ScheduleDefinition, start: string, days: number): Promise<{ fired: string[]; slots: string[]; logger: CapturingLogger }> {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  vi.setSystemTime(new Date(start));
  store = openSqliteStore({ path: ':memory:' });
  const runs = new RecordingSubmitter();
  const logger = new CapturingLogger();
  scheduler = new Scheduler({ store, intake: runs, agentRuns: noRuns, clock: systemClock, logger, owner: 'dst-test', schedules: [def] });
  await scheduler.start();
  // In one go: every pass must arm the timer of the next slot by itself.
  await vi.advanceTimersByTimeAsync(days * DAY);
  const fires = (await store.scheduleFires.list(def.name, 100)).reverse();
  expect(fires.map((fire) => fire.status)).toEqual(fires.map(() => 'submitted'));
  expect(logger.at('error')).toEqual([]);
  return { fired: runs.fired, slots: runs.keys.map((key) => key.slice(`schedule:${def.name}:`.length)), logger };
}

describe('Scheduler across daylight-saving changes (real calendar, fake timers)', () => {
  it('Europe/Berlin 30 2 * * * in spring: the skipped 02:30 fires once, right after the gap', async () => {
    const { fired, slots } = await firesAcross(schedule('berlin-spring', '30 2 * * *', 'Europe/Berlin'), '2026-03-27T12:00:00.000Z', 3);
    expect(fired).toEqual(['2026-03-28T01:30:00.000Z', '2026-03-29T01:00:00.000Z', '2026-03-30T00:30:00.000Z']);
    expect(slots).toEqual(['2026-03-28T02:30:00', '2026-03-29T02:30:00', '2026-03-30T02:30:00']);
  });

  it('Europe/Berlin 30 2 * * * in autumn: the repeated 02:30 fires once, at its first occurrence', async () => {
    const { fired, slots } = await firesAcross(schedule('berlin-autumn', '30 2 * * *', 'Europe/Berlin'), '2026-10-23T12:00:00.000Z', 3);
    expect(fired).toEqual(['2026-10-24T00:30:00.000Z', '2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z']);
    expect(slots).toEqual(['2026-10-24T02:30:00', '2026-10-25T02:30:00', '2026-10-26T02:30:00']);
  });

  it('America/New_York 0 3 * * 1-5 across 2026-03-08: 03:00 EST on Friday, 03:00 EDT from Monday, nothing at the weekend', async () => {
    const { fired, slots } = await firesAcross(schedule('ny-weekdays', '0 3 * * 1-5', 'America/New_York'), '2026-03-05T12:00:00.000Z', 6);
    expect(fired).toEqual(['2026-03-06T08:00:00.000Z', '2026-03-09T07:00:00.000Z', '2026-03-10T07:00:00.000Z', '2026-03-11T07:00:00.000Z']);
    expect(slots).toEqual(['2026-03-06T03:00:00', '2026-03-09T03:00:00', '2026-03-10T03:00:00', '2026-03-11T03:00:00']);
  });
});
