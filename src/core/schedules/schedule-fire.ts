import { AgentApiError, isTerminalState, type AgentRuns } from '../ports/agent-runs.js';
import type { Clock } from '../ports/clock.js';
import { explainError } from '../explain-error.js';
import type { Logger } from '../ports/logger.js';
import { pauseAfterFailures } from './schedule-failures.js';
import { FIRE_STATUS, isManualSlot, scheduleDestinations, scheduleTriggerKey, type ScheduleDefinition } from './schedule-definition.js';
import type { Slot } from '../ports/schedule-calendar.js';
import { readPause } from './schedule-pause.js';
import type { ScheduleFire, Store } from '../ports/store.js';
import { titleFrom } from '../title.js';
import type { TriggerInput } from '../ports/triggers.js';
import { anchorAliasSetting } from '../ports/setting-names.js';
import { Surfaces } from '../surfaces.js';
import { ATTR, SPAN } from '../ports/trace-names.js';
import { tracing } from '../ports/tracing.js';

/**
 * One schedule slot from "due" to "trigger stored": record the (schedule, slot) once across
 * processes, decide (paused? previous run still active?), then submit the start trigger, which the
 * intake worker turns into a run like any other. Timers and catch-up live in `scheduler.ts`.
 */

/** Where scheduled triggers go: `IntakeService` satisfies it. */
export interface TriggerSubmitter {
  submit(input: TriggerInput): Promise<{ accepted: boolean }>;
}

/** How the overlap check asks whether a run is still active: `AgentRuns` satisfies it. */
export type RunLookup = Pick<AgentRuns, 'getRun'>;

/** What `overlap: skip` found out about the previous run. */
interface OverlapCheck {
  /** Why the slot must wait, when it must. */
  busy?: string;
  /** The previous run's end state, when the run API just said it ended. */
  ended?: { runId: string; state: string };
}

export interface FireDeps {
  store: Store;
  /** Where start triggers go (`IntakeService`): the intake worker creates the runs. */
  intake: TriggerSubmitter;
  /** For `overlap: skip`: asks whether the previous run is still active. */
  agentRuns: RunLookup;
  clock: Clock;
  logger: Logger;
  /** Unique per process (leases). */
  owner: string;
  /** How long a process may take to decide a fire before another may (default `FIRE_LEASE_MS`). */
  fireLeaseMs?: number;
  /** The registered surfaces: they read the places a schedule's `notify` names. Absent: it reports to the log. */
  surfaces?: Surfaces;
}

/** What became of a fire. `taken`: another process (or an earlier attempt) owns the slot. */
export type FireOutcome =
  { status: 'submitted'; slot: string; triggerKey: string } | { status: 'skipped'; slot: string; reason: string } | { status: 'taken'; slot: string };

/**
 * How long one process may take to decide a recorded fire before another completes it: also how late
 * a fire whose process died is completed. Enough for the overlap check's run-API call in all but the
 * worst retry sequences; a second decision after that cannot start a second run (the trigger key is
 * the slot's), at worst it notes the slot differently.
 */
export const FIRE_LEASE_MS = 60_000;
/** How many recent fires are searched for recorded ones and for the previous run. */
const RECENT_FIRES = 50;

/** The start trigger of one fire; routing applies the schedule's route through `origin`. */
export function scheduleStartTrigger(def: ScheduleDefinition, slotKey: string, surfaces: Surfaces): Extract<TriggerInput, { kind: 'start' }> {
  const key = scheduleTriggerKey(def.name, slotKey);
  return {
    kind: 'start',
    key,
    source: 'schedule',
    // One anchor per fire: each run gets its own thread / status message, and a thread the status
    // message starts is aliased to it by its surface, so replies there reach this run.
    anchor: key,
    payload: {
      prompt: def.prompt,
      title: def.title ?? titleFrom(def.prompt, `Scheduled run ${def.name}`),
      origin: { source: 'schedule', schedule: def.name },
      destinations: scheduleDestinations(def, surfaces),
    },
  };
}

/** Records, decides and submits fires of schedules; see the file comment. */
export class ScheduleFirer {
  private readonly surfaces: Surfaces;

  constructor(private readonly deps: FireDeps) {
    this.surfaces = deps.surfaces ?? Surfaces.none;
  }

  /**
   * Fires `slot`: records it under (schedule, slot) — `taken` when that slot is already recorded,
   * here or by another process — then decides and submits. `reason` is kept on the fire (catch-up).
   */
  async fire(def: ScheduleDefinition, slot: Slot, reason?: string): Promise<FireOutcome> {
    const traces = tracing();
    if (!traces.on) return this.fireSlot(def, slot, reason);
    // Each slot is a trace of its own: nobody asked, the clock did.
    const attributes = { [ATTR.schedule]: def.name, [ATTR.slot]: slot.key, [ATTR.surface]: 'schedule' };
    return traces.inSpan(SPAN.scheduleSlot, { root: true, attributes }, () => this.fireSlot(def, slot, reason));
  }

  private async fireSlot(def: ScheduleDefinition, slot: Slot, reason: string | undefined): Promise<FireOutcome> {
    const { store, clock } = this.deps;
    const recorded = await store.scheduleFires.record({
      schedule: def.name,
      slot: slot.key,
      firedAt: clock.now(),
      status: FIRE_STATUS.recorded,
      triggerKey: scheduleTriggerKey(def.name, slot.key),
      ...(reason !== undefined && { reason }),
    });
    if (!recorded) return { status: 'taken', slot: slot.key };
    return this.complete(def, slot.key);
  }

  /** Records a slot nobody fired; false if the slot was already recorded (e.g. fired by another process). */
  async recordMissed(def: ScheduleDefinition, slot: Slot, reason: string): Promise<boolean> {
    // firedAt is the slot's own time, so the schedule's history stays in slot order.
    return this.deps.store.scheduleFires.record({ schedule: def.name, slot: slot.key, firedAt: slot.at, status: FIRE_STATUS.missed, reason });
  }

  /**
   * Completes recorded fires whose decision never finished (a crash between record and submit).
   * A fire another process is deciding right now is left alone: its lease says so.
   */
  async completeRecorded(def: ScheduleDefinition): Promise<FireOutcome[]> {
    const fires = await this.deps.store.scheduleFires.list(def.name, RECENT_FIRES);
    const outcomes: FireOutcome[] = [];
    for (const fire of fires.filter((candidate) => candidate.status === FIRE_STATUS.recorded).reverse()) {
      outcomes.push(await this.complete(def, fire.slot));
    }
    return outcomes;
  }

  /**
   * Notes on `submitted` fires what became of their trigger: `created` with the run id, or `failed`
   * with why — for `schedules list` and the failure count.
   */
  async settleSubmitted(def: ScheduleDefinition): Promise<void> {
    const { store } = this.deps;
    for (const fire of await store.scheduleFires.list(def.name, RECENT_FIRES)) {
      if (fire.status !== FIRE_STATUS.submitted || !fire.triggerKey) continue;
      const trigger = await store.triggers.getByKey(fire.triggerKey);
      if (trigger?.state === 'done' && trigger.runId) {
        await store.scheduleFires.update(def.name, fire.slot, { status: FIRE_STATUS.created, runId: trigger.runId });
      } else if (trigger?.state === 'failed' || trigger?.state === 'ignored') {
        const reason = `the run could not be started${trigger.lastError ? `: ${trigger.lastError}` : ''}`;
        await store.scheduleFires.update(def.name, fire.slot, { status: FIRE_STATUS.failed, reason });
      }
    }
  }

  /** Decides a recorded fire under its lease, so exactly one process completes it. */
  private async complete(def: ScheduleDefinition, slotKey: string): Promise<FireOutcome> {
    const { store, clock, owner } = this.deps;
    const lease = `schedule-fire:${def.name}:${slotKey}`;
    if (!(await store.leases.acquire(lease, owner, clock.now(), this.deps.fireLeaseMs ?? FIRE_LEASE_MS))) return { status: 'taken', slot: slotKey };
    try {
      // Read again under the lease: another process may have completed it since we looked.
      const fire = (await store.scheduleFires.list(def.name, RECENT_FIRES)).find((candidate) => candidate.slot === slotKey);
      if (fire?.status !== FIRE_STATUS.recorded) return { status: 'taken', slot: slotKey };
      return await this.decide(def, fire);
    } finally {
      await store.leases.release(lease, owner);
    }
  }

  private async decide(def: ScheduleDefinition, fire: ScheduleFire): Promise<FireOutcome> {
    const { store, logger } = this.deps;
    const trigger = scheduleStartTrigger(def, fire.slot, this.surfaces);
    // Stored already: an earlier attempt got past the decision and crashed before noting it.
    const stored = await store.triggers.getByKey(trigger.key);
    if (!stored) {
      const pause = await readPause(store.settings, def.name);
      // A manual trigger is a person's explicit request (e.g. to test a fix before resuming): it
      // runs although the schedule is paused. Overlap still applies to it.
      if (pause?.paused && !isManualSlot(fire.slot)) return this.skip(def, fire, `paused${pause.reason ? ` (${pause.reason})` : ''}`);
      if (def.overlap === 'skip') {
        const check = await this.busyReason(def, fire.slot);
        if (check.busy) return this.skip(def, fire, check.busy);
        // The API may know of a failure the tracker has not stored yet: it may complete the streak.
        if (check.ended && def.pauseAfterFailures > 0 && !isManualSlot(fire.slot)) {
          const paused = await pauseAfterFailures(this.deps, def, new Map([[check.ended.runId, check.ended.state]]));
          if (paused) return this.skip(def, fire, `paused (${paused.reason ?? 'after failures'})`);
        }
      }
      await this.deps.intake.submit(trigger);
    }
    // A reply where the schedule reports without a thread per run (an issue) reaches the latest
    // scheduled run: the intake worker follows the alias.
    for (const place of this.surfaces.scheduleNotify(def.notify)) {
      if (place.followsLatestRun) await store.settings.set(anchorAliasSetting(place.destination), trigger.anchor);
    }
    await store.scheduleFires.update(def.name, fire.slot, { status: FIRE_STATUS.submitted });
    logger.info({ schedule: def.name, slot: fire.slot, trigger: trigger.key }, `schedule ${def.name} fired`);
    return { status: 'submitted', slot: fire.slot, triggerKey: trigger.key };
  }

  private async skip(def: ScheduleDefinition, fire: ScheduleFire, reason: string): Promise<FireOutcome> {
    await this.deps.store.scheduleFires.update(def.name, fire.slot, { status: FIRE_STATUS.skipped, reason });
    this.deps.logger.info({ schedule: def.name, slot: fire.slot, reason }, `schedule ${def.name} skipped a slot`);
    return { status: 'skipped', slot: fire.slot, reason };
  }

  /**
   * Why the slot must wait for the schedule's previous run (`overlap: skip`), if it must; and the
   * previous run's end state when the run API just said it ended.
   */
  private async busyReason(def: ScheduleDefinition, slotKey: string): Promise<OverlapCheck> {
    const { store } = this.deps;
    const fires = await store.scheduleFires.list(def.name, RECENT_FIRES);
    const previous = fires.find(
      (fire) => fire.slot !== slotKey && fire.triggerKey !== null && (fire.status === FIRE_STATUS.submitted || fire.status === FIRE_STATUS.created),
    );
    if (!previous?.triggerKey) return {};
    const trigger = await store.triggers.getByKey(previous.triggerKey);
    if (trigger?.state === 'pending' || trigger?.state === 'working') {
      return { busy: `overlap: skip — the previous fire (${previous.slot}) is still starting its run` };
    }
    const runId = trigger?.runId ?? previous.runId;
    if (trigger?.state !== 'done' || !runId) return {};
    return this.runBusyReason(runId);
  }

  /**
   * Asks the run API whether the run ended. When it cannot answer, the tracker's last observation
   * decides: a run it saw end does not block; otherwise the slot is skipped. Skipping is the safer
   * mistake for `overlap: skip` — a missed slot is visible and the next one comes, whereas a fire
   * while the API is unreachable would pile runs up (and could not be started anyway).
   */
  private async runBusyReason(runId: string): Promise<OverlapCheck> {
    try {
      const run = await this.deps.agentRuns.getRun(runId);
      return isTerminalState(run.state) ? { ended: { runId, state: run.state } } : { busy: `overlap: skip — the previous run ${runId} is still ${run.state}` };
    } catch (error) {
      // A run the API does not know cannot be active.
      if (error instanceof AgentApiError && error.kind === 'not_found') return {};
      const tracked = await this.deps.store.trackedRuns.get(runId);
      if (tracked && !tracked.tracked && isTerminalState(tracked.state)) return {};
      return {
        busy:
          `overlap: skip — could not ask the run API whether the previous run ${runId} has ended (${explainError(error)}); ` +
          `it was last seen ${tracked?.state ?? 'in an unknown state'}`,
      };
    }
  }
}
