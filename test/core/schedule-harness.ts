/**
 * The scheduler under test against the real store (SQLite) and the real IntakeService, with a
 * TestClock, a hand-written calendar (every `period` from the epoch, UTC keys) and a run API fake
 * that answers `getRun` from a map. The intake worker is played by `createRuns`, the tracker by
 * `observe`: both write the store exactly as they would.
 */
import { AgentApiError, isTerminalState, type RunItem } from '../../src/core/ports/agent-runs.js';
import { TestClock } from '../../src/core/ports/clock.js';
import { IntakeService } from '../../src/core/intake/intake-service.js';
import type { ScheduleCalendar, Slot } from '../../src/core/ports/schedule-calendar.js';
import type { RunLookup } from '../../src/core/schedules/schedule-fire.js';
import type { ScheduleDefinition } from '../../src/core/schedules/schedule-definition.js';
import { Scheduler, type SchedulerOptions } from '../../src/core/schedules/scheduler.js';
import type { ScheduleFire, Store } from '../../src/core/ports/store.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite-store.js';
import { CapturingLogger } from './capturing-logger.js';
import { testSurfaces } from '../helpers/surfaces.js';

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
/** 2026-01-01T00:00:00Z: the harness clock starts 10 minutes after it. */
export const DAY0 = Date.parse('2026-01-01T00:00:00Z');
export const at = (time: string) => Date.parse(`2026-01-01T${time}Z`);

/** Slots every `period` ms (counted from the epoch); keys are the UTC time without milliseconds. */
export function everyCalendar(period: number): ScheduleCalendar {
  const slot = (time: number): Slot => ({ key: new Date(time).toISOString().slice(0, 19), at: time });
  return {
    next(after, count) {
      const first = Math.floor(after / period) * period + period;
      return Array.from({ length: count }, (_, index) => slot(first + index * period));
    },
    between(from, to, limit) {
      const slots: Slot[] = [];
      for (let time = Math.floor(to / period) * period; time > from && slots.length < limit; time -= period) slots.push(slot(time));
      return slots.reverse();
    },
  };
}

export function aSchedule(overrides: Partial<ScheduleDefinition> = {}): ScheduleDefinition {
  return {
    name: 'nightly',
    calendar: everyCalendar(HOUR),
    prompt: 'Update the dependencies\nand open a pull request.',
    overlap: 'skip',
    catchUp: 'none',
    enabled: true,
    pauseAfterFailures: 0,
    notify: {},
    ...overrides,
  };
}

/** `getRun` from a map of run states; `failWith` makes every call throw it. */
export class FakeRunApi implements RunLookup {
  readonly states = new Map<string, string>();
  failWith: Error | undefined;
  calls = 0;

  async getRun(runId: string): Promise<RunItem> {
    this.calls++;
    if (this.failWith) throw this.failWith;
    const state = this.states.get(runId);
    if (state === undefined) throw new AgentApiError('unknown run', { kind: 'not_found', status: 404, retryable: false });
    return { run_id: runId, state };
  }
}

export class ScheduleHarness {
  readonly clock = new TestClock(DAY0 + 10 * MINUTE);
  readonly logger = new CapturingLogger();
  readonly api = new FakeRunApi();
  private runCount = 0;

  constructor(readonly store: SqliteStore = openSqliteStore({ path: ':memory:' })) {}

  scheduler(schedules: ScheduleDefinition[] = [aSchedule()], extra: { owner?: string; store?: Store; options?: SchedulerOptions } = {}): Scheduler {
    const store = extra.store ?? this.store;
    return new Scheduler({
      surfaces: testSurfaces(),
      store,
      intake: new IntakeService({ store, clock: this.clock }),
      agentRuns: this.api,
      clock: this.clock,
      logger: this.logger,
      owner: extra.owner ?? 'scheduler-1',
      schedules,
      ...(extra.options && { options: extra.options }),
    });
  }

  /** Moves the clock to an absolute time, running the timers that fall due. */
  advanceTo(time: number): Promise<void> {
    return this.clock.advance(time - this.clock.now());
  }

  /** The schedule's fires, oldest first, as `slot status` (plus the reason when `withReason`). */
  async fires(schedule = 'nightly'): Promise<ScheduleFire[]> {
    return (await this.store.scheduleFires.list(schedule, 500)).reverse();
  }

  async statuses(schedule = 'nightly'): Promise<string[]> {
    return (await this.fires(schedule)).map((fire) => `${fire.slot.slice(11, 16)} ${fire.status}`);
  }

  /** Keys of every stored trigger, in the order stored. */
  triggerKeys(): string[] {
    return this.store.db.prepare('SELECT key FROM triggers ORDER BY id').pluck().all() as string[];
  }

  /** Plays the intake worker: every pending trigger gets a run in `state` (QUEUED by default). */
  async createRuns(state = 'QUEUED'): Promise<string[]> {
    const created: string[] = [];
    for (;;) {
      const trigger = await this.store.triggers.claimNext('intake', this.clock.now(), 30_000);
      if (!trigger) return created;
      const runId = `run_${++this.runCount}`;
      const run = {
        runId,
        anchor: trigger.anchor,
        source: trigger.source,
        title: 't',
        route: {},
        destinations: [trigger.anchor],
        triggerKey: trigger.key,
        state,
        serverUpdatedAt: null,
        sessionLink: null,
      };
      await this.store.triggers.finish(trigger.id, 'intake', { state: 'done', runId }, { run, link: { anchor: trigger.anchor, runId } }, this.clock.now());
      this.api.states.set(runId, state);
      created.push(runId);
    }
  }

  /** Plays the intake worker giving up on every pending trigger. */
  async failTriggers(error = 'bad_request'): Promise<void> {
    for (;;) {
      const trigger = await this.store.triggers.claimNext('intake', this.clock.now(), 30_000);
      if (!trigger) return;
      await this.store.triggers.finish(trigger.id, 'intake', { state: 'failed', error }, {}, this.clock.now());
    }
  }

  /** Plays the tracker (and the run API): the run is now in `state`. */
  async observe(runId: string, state: string): Promise<void> {
    const run = await this.store.trackedRuns.get(runId);
    if (!run) throw new Error(`unknown run ${runId}`);
    const observation = { state, serverUpdatedAt: null, sessionLink: null, tracked: !isTerminalState(state) };
    await this.store.trackedRuns.recordTransition(runId, run.transition, observation, [], this.clock.now());
    this.api.states.set(runId, state);
  }

  close(): Promise<void> {
    return this.store.close();
  }
}
