/**
 * The schedule calendar adapter: cron expression + IANA zone → slots, with the daylight-saving rule
 * of docs/architecture.md §6 (a skipped local time fires once right after the gap, a repeated one fires once).
 *
 * Field semantics follow node-cron 4 (its `parse` expands the fields; its matcher ANDs day-of-month
 * and day-of-week, unlike Vixie cron's OR, and reads weekday 7 as Sunday), so on days without a
 * daylight-saving change our slots equal node-cron's `getNextRuns`.
 *
 * Internally a local wall time is a "wall" number: the epoch ms the same calendar fields would have
 * in UTC. Walls are walked day by day, and within a day through the sorted time-of-day list.
 */
import { parse } from 'node-cron';
import type { ScheduleCalendar, Slot } from '../core/ports/schedule-calendar.js';

const SECOND = 1000;
const DAY = 86_400_000;
/** Feb 29 recurs within 8 years (2096 → 2104), so a longer forward search means "never". */
const MAX_DAYS_AHEAD = 366 * 8 + 2;

const formatters = new Map<string, Intl.DateTimeFormat>();

/** One formatter per zone: building them is far costlier than formatting. */
function formatterFor(timezone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timezone);
  if (!formatter) {
    try {
      formatter = new Intl.DateTimeFormat('en-US', {
        timeZone: timezone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch {
      throw new Error(`unknown timezone "${timezone}" — use an IANA name such as Europe/Berlin or UTC`);
    }
    formatters.set(timezone, formatter);
  }
  return formatter;
}

/** UTC offset (ms) of `timezone` at instant `at`. */
function offsetAt(formatter: Intl.DateTimeFormat, at: number): number {
  const fields: Record<string, number> = {};
  for (const part of formatter.formatToParts(at)) {
    if (part.type !== 'literal') fields[part.type] = Number(part.value);
  }
  const wall = Date.UTC(fields.year ?? 0, (fields.month ?? 1) - 1, fields.day ?? 1, fields.hour ?? 0, fields.minute ?? 0, fields.second ?? 0);
  // formatToParts drops milliseconds; compare against the instant's whole second.
  return wall - (at - (((at % SECOND) + SECOND) % SECOND));
}

/**
 * Offsets around one local day. The probes sit one day before and two days after the day's wall
 * start, outside the day's instants for any offset within ±14 h; when they differ, the single
 * transition between them (zones never change twice within three days) is located once, so every
 * slot of the day is then resolved without further formatting.
 */
interface DayZone {
  before: number;
  after: number;
  /** First instant with the `after` offset; absent when the offsets are equal. */
  transition?: number;
  /** Lazily computed gap facts, see `gapOf`. */
  gap?: { start: number; end: number; firstKey: number | null } | null;
}

function numericField(name: string, values: (number | string)[]): Set<number> {
  const out = new Set<number>();
  for (const value of values) {
    if (typeof value !== 'number') throw new Error(`cron ${name} "${value}" is not supported (L, W and # are not)`);
    out.add(name === 'day-of-week' && value === 7 ? 0 : value);
  }
  return out;
}

/** A cron expression read once: its day fields as sets, and the times of day it names (ms, ascending). */
interface CronFields {
  months: Set<number>;
  daysOfMonth: Set<number>;
  weekdays: Set<number>;
  times: number[];
  timeSet: Set<number>;
}

function parseCron(cron: string): ReturnType<typeof parse> {
  try {
    return parse(cron);
  } catch (error) {
    throw new Error(`invalid cron expression "${cron}": ${(error as Error).message}`, { cause: error });
  }
}

function cronFields(fields: ReturnType<typeof parse>): CronFields {
  const months = numericField('month', fields.month);
  const daysOfMonth = numericField('day-of-month', fields.dayOfMonth);
  const weekdays = numericField('day-of-week', fields.dayOfWeek);
  // Seconds within a day, ascending: at most 86 400 entries, built once.
  const times: number[] = [];
  for (const hour of [...new Set(fields.hour)].sort((a, b) => a - b)) {
    for (const minute of [...new Set(fields.minute)].sort((a, b) => a - b)) {
      for (const second of [...new Set(fields.second)].sort((a, b) => a - b)) {
        times.push((hour * 3600 + minute * 60 + second) * SECOND);
      }
    }
  }
  return { months, daysOfMonth, weekdays, times, timeSet: new Set(times) };
}

/** The offsets around the local day starting at wall `dayStart`, and the transition between them if any. */
function zoneOf(formatter: Intl.DateTimeFormat, dayStart: number): DayZone {
  const before = offsetAt(formatter, dayStart - DAY);
  const after = offsetAt(formatter, dayStart + 2 * DAY);
  if (before === after) return { before, after };
  let lo = (dayStart - DAY) / SECOND; // offset `before` here
  let hi = (dayStart + 2 * DAY) / SECOND; // offset `after` here
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (offsetAt(formatter, mid * SECOND) === before) lo = mid;
    else hi = mid;
  }
  return { before, after, transition: hi * SECOND };
}

/**
 * When `wall` fires. Monotone in `wall`, which lets callers binary-search a day: a repeated wall
 * takes the earlier instant, a skipped one the gap end. `skipped` marks walls inside a gap.
 */
function instantOf(wall: number, zone: DayZone): { at: number; skipped: boolean } {
  const { before, after, transition } = zone;
  if (transition === undefined) return { at: wall - before, skipped: false };
  if (wall - before < transition) return { at: wall - before, skipped: false };
  if (wall - after >= transition) return { at: wall - after, skipped: false };
  return { at: transition, skipped: true };
}

/** One schedule's walk through local days: which walls match, and when each fires. */
class CronWalk {
  constructor(
    private readonly fields: CronFields,
    private readonly formatter: Intl.DateTimeFormat,
  ) {}

  /** AND of month, day-of-month and day-of-week, as node-cron's TimeMatcher does. */
  dayMatches(dayStart: number): boolean {
    const date = new Date(dayStart);
    const { months, daysOfMonth, weekdays } = this.fields;
    return months.has(date.getUTCMonth() + 1) && daysOfMonth.has(date.getUTCDate()) && weekdays.has(date.getUTCDay());
  }

  wallMatches(wall: number): boolean {
    const dayStart = Math.floor(wall / DAY) * DAY;
    return this.dayMatches(dayStart) && this.fields.timeSet.has(wall - dayStart);
  }

  /** First matching wall in [start, end), scanning at most the few days the range spans. */
  firstMatchIn(start: number, end: number): number | null {
    for (let dayStart = Math.floor(start / DAY) * DAY; dayStart < end; dayStart += DAY) {
      if (!this.dayMatches(dayStart)) continue;
      for (const time of this.fields.times) {
        const wall = dayStart + time;
        if (wall >= end) break;
        if (wall >= start) return wall;
      }
    }
    return null;
  }

  /**
   * The spring-forward gap of a zone, if any: its wall range, and the one wall that gets the
   * collapsed slot (null when the gap end is itself a slot, which then covers the skipped ones).
   */
  gapOf(zone: DayZone): DayZone['gap'] {
    if (zone.gap !== undefined) return zone.gap;
    zone.gap = null;
    if (zone.transition !== undefined && zone.after > zone.before) {
      const start = zone.transition + zone.before;
      const end = zone.transition + zone.after;
      zone.gap = { start, end, firstKey: this.wallMatches(end) ? null : this.firstMatchIn(start, end) };
    }
    return zone.gap;
  }

  slotOf(wall: number, zone: DayZone): Slot | null {
    const { at, skipped } = instantOf(wall, zone);
    if (skipped && this.gapOf(zone)?.firstKey !== wall) return null;
    return { key: new Date(wall).toISOString().slice(0, 19), at };
  }

  /** Index of the first time of the day whose instant satisfies the (monotone) `past` test. */
  firstIndex(dayStart: number, zone: DayZone, past: (at: number) => boolean): number {
    const { times } = this.fields;
    let lo = 0;
    let hi = times.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (past(instantOf(dayStart + (times[mid] as number), zone).at)) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  wallAt(at: number): number {
    return at + offsetAt(this.formatter, at);
  }

  next(after: number, count: number): Slot[] {
    const { times } = this.fields;
    const slots: Slot[] = [];
    if (count <= 0 || times.length === 0) return slots;
    // Walls before wall(after) fire at or before `after` (the mapping is monotone), so start there.
    // The search horizon restarts at every slot found: only a long silence means "never".
    let dayStart = Math.floor(this.wallAt(after) / DAY) * DAY;
    for (let idle = 0; idle <= MAX_DAYS_AHEAD && slots.length < count; idle++, dayStart += DAY) {
      if (!this.dayMatches(dayStart)) continue;
      const zone = zoneOf(this.formatter, dayStart);
      for (let i = this.firstIndex(dayStart, zone, (at) => at > after); i < times.length; i++) {
        const slot = this.slotOf(dayStart + (times[i] as number), zone);
        if (!slot) continue;
        slots.push(slot);
        idle = 0;
        if (slots.length >= count) break;
      }
    }
    return slots;
  }

  between(from: number, to: number, limit: number): Slot[] {
    const { times } = this.fields;
    const slots: Slot[] = [];
    if (limit <= 0 || times.length === 0 || to <= from) return slots;
    // Walk backwards from `to` so a long window of a dense schedule costs only `limit` slots.
    // Start a day late: in a repeated hour, walls after wall(to) can still fire before `to`.
    const fromWall = this.wallAt(from);
    let dayStart = Math.floor(this.wallAt(to) / DAY) * DAY + DAY;
    search: for (; dayStart + DAY > fromWall; dayStart -= DAY) {
      if (!this.dayMatches(dayStart)) continue;
      const zone = zoneOf(this.formatter, dayStart);
      for (let i = this.firstIndex(dayStart, zone, (at) => at > to) - 1; i >= 0; i--) {
        const slot = this.slotOf(dayStart + (times[i] as number), zone);
        if (!slot) continue;
        if (slot.at <= from) break search;
        slots.push(slot);
        if (slots.length >= limit) break search;
      }
    }
    return slots.reverse();
  }
}

/**
 * The calendar of one schedule: `cron` (5 fields, or 6 with leading seconds, node-cron syntax) read
 * as wall times in `timezone` (IANA). Throws on an expression node-cron cannot parse or an unknown
 * zone. Slot keys are the local wall time `YYYY-MM-DDTHH:mm:ss`.
 */
export function cronCalendar(cron: string, timezone: string): ScheduleCalendar {
  const parsed = parseCron(cron);
  const formatter = formatterFor(timezone);
  const walk = new CronWalk(cronFields(parsed), formatter);
  return {
    next: (after, count) => walk.next(after, count),
    between: (from, to, limit) => walk.between(from, to, limit),
  };
}
