import type { ScheduleCalendar, Slot } from '../ports/schedule-calendar.js';
import type { ScheduleNotify } from '../ports/surface.js';
import type { Surfaces } from '../surfaces.js';

/** What a schedule is and how its fires are named: shared by firing, failures and status. */

/** A schedule as the core needs it. `ScheduleConfig` (config/types.ts) plus a calendar satisfies it. */
export interface ScheduleDefinition {
  name: string;
  calendar: ScheduleCalendar;
  prompt: string;
  /** The run's title; default the prompt's first line (docs/architecture.md §6). */
  title?: string;
  overlap: 'skip' | 'allow';
  catchUp: 'none' | 'latest';
  /** False: the calendar never fires it; `schedules trigger` still does. */
  enabled: boolean;
  /** 0 = never pause. */
  pauseAfterFailures: number;
  /** Where it reports, by each surface's own key (`Surface.scheduleNotify`). */
  notify: ScheduleNotify;
}

/**
 * Statuses of a `schedule_fires` row: `recorded` (claimed, not yet decided), `submitted` (trigger
 * stored), then `created` (the run exists) or `failed` (the run could not be started); or `skipped`
 * (paused, overlap) or `missed` (the bridge was not running at the time).
 */
export const FIRE_STATUS = {
  recorded: 'recorded',
  submitted: 'submitted',
  created: 'created',
  failed: 'failed',
  skipped: 'skipped',
  missed: 'missed',
} as const;

const MANUAL_PREFIX = 'manual:';

/** Trigger key (and anchor) of a schedule's fire: the same for every attempt, so a re-submit is a no-op. */
export function scheduleTriggerKey(schedule: string, slotKey: string): string {
  return `schedule:${schedule}:${slotKey}`;
}

/** The slot of a fire asked for with `schedules trigger`, at `now`. */
export function manualSlot(now: number): Slot {
  return { key: `${MANUAL_PREFIX}${new Date(now).toISOString()}`, at: now };
}

export function isManualSlot(slotKey: string): boolean {
  return slotKey.startsWith(MANUAL_PREFIX);
}

/** Where a schedule reports: the places its `notify` names on the registered surfaces, else the log. */
export function scheduleDestinations(def: Pick<ScheduleDefinition, 'name' | 'notify'>, surfaces: Surfaces): string[] {
  const destinations = surfaces.scheduleNotify(def.notify).map((place) => place.destination);
  return destinations.length > 0 ? destinations : [`log:schedule:${def.name}`];
}
