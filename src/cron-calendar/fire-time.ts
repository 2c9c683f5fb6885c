/**
 * A schedule's fire time as people read it: its own wall time and UTC. Shared by `schedules list` and
 * the console's schedules page, so it lives beside the calendar rather than in either of them.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timezone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timezone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      weekday: 'short',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      timeZoneName: 'longOffset',
    });
    formatters.set(timezone, formatter);
  }
  return formatter;
}

/** The wall time of `at` in `timezone`: date, time, weekday and UTC offset (`+02:00`). */
export function wallTime(at: number, timezone: string): { weekday: string; date: string; time: string; offset: string } {
  const parts: Record<string, string> = {};
  for (const part of formatterFor(timezone).formatToParts(at)) parts[part.type] = part.value;
  const offset = (parts['timeZoneName'] ?? 'GMT').replace(/^GMT/, '') || '+00:00';
  const seconds = parts['second'] === '00' ? '' : `:${parts['second']}`;
  return {
    weekday: parts['weekday'] ?? '',
    date: `${parts['year']}-${parts['month']}-${parts['day']}`,
    time: `${parts['hour']}:${parts['minute']}${seconds}`,
    offset,
  };
}

/** `Mon 2026-03-30 03:00 +02:00 = 2026-03-30 01:00 UTC`: the schedule's own time, then UTC. */
export function formatFireTime(at: number, timezone: string): string {
  const local = wallTime(at, timezone);
  const utc = wallTime(at, 'UTC');
  return `${local.weekday} ${local.date} ${local.time} ${local.offset} = ${utc.date} ${utc.time} UTC`;
}
