import { FIRE_STATUS, type ScheduleDefinition } from './schedule-definition.js';
import { readPause, type PauseState } from './schedule-pause.js';
import type { Slot } from '../ports/schedule-calendar.js';
import type { ScheduleFire, Store } from '../ports/store.js';

/** What became of a fire's trigger, read from the store (the tracker keeps run states there). */
export type FireRunOutcome =
  /** The trigger is stored; the intake worker has not created the run yet. */
  | { kind: 'starting' }
  /** The intake worker gave up (or refused): no run. */
  | { kind: 'not_started'; error: string | null }
  /** The run exists; `state` is the tracker's last observation. */
  | { kind: 'run'; runId: string; state: string };

/** The outcome of a fire that submitted a trigger; undefined for skipped, missed and undecided fires. */
export async function fireRunOutcome(store: Store, fire: ScheduleFire, known?: ReadonlyMap<string, string>): Promise<FireRunOutcome | undefined> {
  const submitted: string[] = [FIRE_STATUS.submitted, FIRE_STATUS.created, FIRE_STATUS.failed];
  if (!fire.triggerKey || !submitted.includes(fire.status)) return undefined;
  const trigger = await store.triggers.getByKey(fire.triggerKey);
  if (!trigger) return undefined;
  if (trigger.state === 'pending' || trigger.state === 'working') return { kind: 'starting' };
  const runId = trigger.runId ?? fire.runId;
  if (trigger.state !== 'done' || !runId) return { kind: 'not_started', error: trigger.lastError };
  const knownState = known?.get(runId);
  if (knownState) return { kind: 'run', runId, state: knownState };
  const run = await store.trackedRuns.get(runId);
  return { kind: 'run', runId, state: run?.state ?? 'UNKNOWN' };
}

/** A schedule as `schedules list` shows it. */
export interface ScheduleStatus {
  name: string;
  enabled: boolean;
  paused: boolean;
  /** Why and since when it is paused (absent when not paused). */
  pause?: PauseState;
  /** The next fire times (empty when the calendar never fires again). */
  next: Slot[];
  /** The most recent fire, if any. */
  last?: {
    slot: string;
    firedAt: number;
    status: string;
    reason: string | null;
    runId: string | null;
    /** The run's state, `starting`, or `not started` — absent for skipped and missed fires. */
    outcome?: string;
  };
}

/**
 * The status of one schedule at `now`. Without a store (no database yet) there is no history and
 * the schedule is not paused.
 */
export async function scheduleStatus(def: ScheduleDefinition, store: Store | undefined, now: number, count = 3): Promise<ScheduleStatus> {
  const next = def.calendar.next(now, count);
  const pause = store ? await readPause(store.settings, def.name) : undefined;
  const fire = store ? await store.scheduleFires.latest(def.name) : undefined;
  const status: ScheduleStatus = {
    name: def.name,
    enabled: def.enabled,
    paused: pause?.paused === true,
    ...(pause?.paused && { pause }),
    next,
  };
  if (!store || !fire) return status;
  const outcome = await fireRunOutcome(store, fire);
  status.last = {
    slot: fire.slot,
    firedAt: fire.firedAt,
    status: fire.status,
    reason: fire.reason,
    runId: outcome?.kind === 'run' ? outcome.runId : fire.runId,
    ...(outcome && { outcome: outcomeText(outcome) }),
  };
  return status;
}

function outcomeText(outcome: FireRunOutcome): string {
  switch (outcome.kind) {
    case 'starting':
      return 'starting';
    case 'not_started':
      return `not started${outcome.error ? ` (${outcome.error})` : ''}`;
    case 'run':
      return outcome.state;
  }
}
