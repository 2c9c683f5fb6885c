import type { Slot } from '../ports/schedule-calendar.js';
import { pauseAfterFailures } from './schedule-failures.js';
import { ScheduleFirer, type FireDeps, type FireOutcome } from './schedule-fire.js';
import { isManualSlot, manualSlot, type ScheduleDefinition } from './schedule-definition.js';

export interface SchedulerOptions {
  /**
   * At start, a slot that passed less than this ago is late, not missed: it fires whatever
   * `catch_up` says (a restart right at the slot's time). Default 1 min.
   */
  lateMs?: number;
  /**
   * The same while running, where a slot is late only because this process was busy (e.g. the
   * overlap check of the previous slot waited for the run API) or asleep. Default 5 min.
   */
  busyLateMs?: number;
  /** `catch_up: latest` fires the most recent missed slot only within this window. Default 1 h. */
  catchUpWindowMs?: number;
  /** At most this many missed slots are recorded per gap (the latest ones). Default 100. */
  missedLimit?: number;
  /** Wait before trying again after a pass failed (e.g. the database was busy). Default 30 s. */
  retryMs?: number;
}

/** What the scheduler needs: what a fire needs (store, submitter, run lookup, clock, logger, owner), and the schedules. */
export interface SchedulerDeps extends FireDeps {
  /** Every configured schedule; disabled ones are never armed but can be triggered by hand. */
  schedules: ScheduleDefinition[];
  options?: SchedulerOptions;
}

/** setTimeout's longest delay; longer waits are re-armed in chunks. */
const MAX_TIMER_MS = 2 ** 31 - 1;
const HOUR = 3_600_000;

/** `schedules trigger` named a schedule that is not configured. */
export class UnknownScheduleError extends Error {
  override readonly name = 'UnknownScheduleError';
}

/**
 * Fires the configured schedules. Each slot is recorded under (schedule, slot) before anything
 * else, so a slot fires once across restarts and processes sharing the database (the record is the
 * only dedupe: there is none in memory). A pass per schedule handles every slot that fell due since
 * the previous pass — the latest fires, older ones are recorded as missed (or caught up, see
 * `catch_up`) — then arms one timer for the next slot. Passes of one schedule run one at a time.
 */
export class Scheduler {
  private readonly firer: ScheduleFirer;
  private readonly byName: Map<string, ScheduleDefinition>;
  private readonly chains = new Map<string, Promise<unknown>>();
  private readonly timers = new Map<string, () => void>();
  /** Per schedule: slots up to this instant have been handled by this process. */
  private readonly handledUntil = new Map<string, number>();
  private readonly lateMs: number;
  private readonly busyLateMs: number;
  private readonly catchUpWindowMs: number;
  private readonly missedLimit: number;
  private readonly retryMs: number;
  private stopped = false;

  constructor(private readonly deps: SchedulerDeps) {
    this.firer = new ScheduleFirer(deps);
    this.byName = new Map(deps.schedules.map((def) => [def.name, def]));
    this.lateMs = deps.options?.lateMs ?? 60_000;
    this.busyLateMs = Math.max(this.lateMs, deps.options?.busyLateMs ?? 5 * 60_000);
    this.catchUpWindowMs = deps.options?.catchUpWindowMs ?? HOUR;
    this.missedLimit = deps.options?.missedLimit ?? 100;
    this.retryMs = deps.options?.retryMs ?? 30_000;
  }

  /**
   * For each enabled schedule: completes fires recorded but never submitted, handles the slots
   * missed since its last recorded fire (none recorded: nothing is missed), and arms its timer.
   * Resolves when that first pass is done; never rejects (errors are logged and retried).
   */
  async start(): Promise<void> {
    const enabled = this.deps.schedules.filter((def) => def.enabled);
    await Promise.all(enabled.map((def) => this.serially(def, () => this.pass(def))));
  }

  /** Cancels the timers and waits for the passes in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const cancel of this.timers.values()) cancel();
    this.timers.clear();
    await Promise.all(this.chains.values());
  }

  /**
   * Periodic upkeep (call it every tracker interval): completes recorded fires another process
   * abandoned, notes which fires' runs were created or failed, and pauses schedules whose last N
   * runs failed — so the pause is said soon after the Nth failure, not only at the next slot.
   */
  async check(): Promise<void> {
    await Promise.all(
      this.deps.schedules.map((def) =>
        this.serially(def, async () => {
          await this.firer.completeRecorded(def);
          await this.firer.settleSubmitted(def);
          if (def.enabled) await pauseAfterFailures(this.deps, def);
        }),
      ),
    );
  }

  /**
   * Fires the schedule now (`schedules trigger`), under slot `manual:<ISO time>`: recorded like any
   * fire and subject to `overlap`, but not to a pause or `enabled: false` — a person asked for it.
   */
  async trigger(name: string): Promise<FireOutcome> {
    const def = this.byName.get(name);
    if (!def) throw new UnknownScheduleError(`no schedule named "${name}"`);
    return this.serially(def, async () => {
      await pauseAfterFailures(this.deps, def);
      return this.firer.fire(def, manualSlot(this.deps.clock.now()));
    });
  }

  /**
   * The first pass's preparation: fires recorded but never submitted are completed, and the slots
   * since the last calendar fire count as due (manual fires say nothing about the calendar).
   */
  private async boot(def: ScheduleDefinition, now: number): Promise<void> {
    await this.firer.completeRecorded(def);
    const fires = await this.deps.store.scheduleFires.list(def.name, 50);
    const last = fires.find((fire) => !isManualSlot(fire.slot));
    // No fire recorded: the schedule is new here, so nothing before now was due (not even a late slot).
    this.handledUntil.set(def.name, last ? last.firedAt : now);
  }

  /** Handles the slots due since the previous pass, then arms the timer for the next one. Never rejects. */
  private async pass(def: ScheduleDefinition): Promise<void> {
    const now = this.deps.clock.now();
    let retry = false;
    try {
      const first = !this.handledUntil.has(def.name);
      if (first) await this.boot(def, now);
      await pauseAfterFailures(this.deps, def);
      await this.handleDue(def, this.handledUntil.get(def.name) ?? now, now, first ? this.lateMs : this.busyLateMs);
      this.handledUntil.set(def.name, now);
    } catch (error) {
      // The same slots come up again in the next pass: nothing recorded twice, nothing lost.
      this.deps.logger.error({ err: error, schedule: def.name }, `schedule ${def.name}: pass failed; retrying`);
      retry = true;
    }
    this.arm(def, retry);
  }

  /** Slots in (since, now]: the latest fires when late or caught up, every other one is missed. */
  private async handleDue(def: ScheduleDefinition, since: number, now: number, lateMs: number): Promise<void> {
    const slots = def.calendar.between(since, now, this.missedLimit + 1);
    const latest = slots.at(-1);
    if (!latest) return;
    const lateBy = now - latest.at;
    const catchUp = lateBy > lateMs && def.catchUp === 'latest' && lateBy <= this.catchUpWindowMs;
    const fireLatest = lateBy <= lateMs || catchUp;
    const missed = fireLatest ? slots.slice(0, -1) : slots;
    if (missed.length > 0) await this.recordMissed(def, missed, fireLatest, lateBy);
    if (fireLatest) {
      const reason = catchUp ? `catch_up: latest — fired ${Math.round(lateBy / 60_000)} min late, after the bridge was not running` : undefined;
      await this.firer.fire(def, latest, reason);
    }
  }

  private async recordMissed(def: ScheduleDefinition, slots: Slot[], latestFired: boolean, lateBy: number): Promise<void> {
    const reason = latestFired
      ? 'the bridge was not running at this time; a later slot fired instead'
      : def.catchUp === 'latest'
        ? `the bridge was not running at this time; catch_up: latest fires only a slot missed less than ${Math.round(this.catchUpWindowMs / 60_000)} min ago (the latest was ${Math.round(lateBy / 60_000)} min ago)`
        : 'the bridge was not running at this time (catch_up: none)';
    let recorded = 0;
    for (const slot of slots.slice(-this.missedLimit)) if (await this.firer.recordMissed(def, slot, reason)) recorded++;
    if (recorded > 0) this.deps.logger.warn({ schedule: def.name, missed: recorded, reason }, `schedule ${def.name} missed ${recorded} slot(s)`);
  }

  /** One timer per schedule: at its next slot (in chunks setTimeout can take), or soon after a failed pass. */
  private arm(def: ScheduleDefinition, retry: boolean): void {
    if (this.stopped) return;
    const now = this.deps.clock.now();
    // After what this process handled, not after now: a slot that fell due during a long pass
    // (the previous slot's run-API call) is then handled at once instead of at the slot after it.
    const [next] = def.calendar.next(this.handledUntil.get(def.name) ?? now, 1);
    if (!next && !retry) {
      this.deps.logger.info({ schedule: def.name }, `schedule ${def.name} has no further slots`);
      return;
    }
    // An early wake (a chunk of a long wait) finds nothing due and simply arms again.
    const delay = retry ? this.retryMs : Math.min(Math.max(0, (next as Slot).at - now), MAX_TIMER_MS);
    this.timers.get(def.name)?.();
    this.timers.set(
      def.name,
      this.deps.clock.setTimer(() => {
        this.timers.delete(def.name);
        void this.serially(def, () => this.pass(def));
      }, delay),
    );
  }

  /** Runs `work` after the schedule's earlier work; errors are logged (and rethrown to the caller). */
  private serially<T>(def: ScheduleDefinition, work: () => Promise<T>): Promise<T> {
    const previous = this.chains.get(def.name) ?? Promise.resolve();
    const result = previous.then(work);
    const settled = result.catch((error: unknown) => this.deps.logger.error({ err: error, schedule: def.name }, `schedule ${def.name}: work failed`));
    this.chains.set(def.name, settled);
    return result;
  }
}
