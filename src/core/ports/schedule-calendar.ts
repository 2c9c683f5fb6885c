/**
 * When a schedule fires, as the core needs it. The adapter (`src/cron-calendar/cron-calendar.ts`) parses the
 * cron expression and applies the timezone and daylight-saving rules of docs/architecture.md §6; the core only
 * asks for slots, so it never depends on a cron library.
 */

/** One fire time of a schedule. */
export interface Slot {
  /**
   * The slot's identity: the local wall time it stands for, `YYYY-MM-DDTHH:mm:ss` in the schedule's
   * timezone. A repeated local hour (autumn) yields one slot, a skipped one (spring) still yields its
   * key, so `(schedule, key)` is unique per intended fire and survives restarts.
   */
  key: string;
  /** The instant to fire at (epoch ms): the local time, or the end of the gap when it was skipped. */
  at: number;
}

export interface ScheduleCalendar {
  /** The first `count` slots strictly after `after` (epoch ms), in time order. */
  next(after: number, count: number): Slot[];
  /** Slots with `from < at <= to`, in time order, at most the `limit` latest ones. */
  between(from: number, to: number, limit: number): Slot[];
}
