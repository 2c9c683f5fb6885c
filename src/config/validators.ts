/** Small value checks shared by the file and environment schemas. */

/** Slack conversation IDs: public (C), private (G) channels and DMs (D). */
export const SLACK_CHANNEL_ID = /^[CGD][A-Z0-9]{2,}$/;
/** Slack user IDs (U…, W… on Enterprise Grid). */
export const SLACK_USER_ID = /^[UW][A-Z0-9]{2,}$/;
/** Slack organisations: a workspace (team, T…) or an Enterprise Grid org (E…). */
export const SLACK_TEAM_ID = /^[TE][A-Z0-9]{2,}$/;
/** Schedule names: used on the command line (`schedules trigger <name>`) and as run config names. */
export const SCHEDULE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const CHANNEL_ID_HINT =
  'use the channel ID (e.g. C0123ABCD: open the channel, click its name, the ID is at the bottom of "About"), or "*" for every other channel and DMs';

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
