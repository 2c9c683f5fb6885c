/** The checks of a schedule in the file beyond its shape: its name and its time zone. */

/** Schedule names: used on the command line (`schedules trigger <name>`) and as run config names. */
export const SCHEDULE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** True when `Intl` (and so the scheduler) knows the IANA zone. */
export function isValidTimeZone(zone: string): boolean {
  if (zone.trim() === '') return false;
  try {
    new Intl.DateTimeFormat(undefined, { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
