import type { ScheduleStatus } from '../core/schedules/schedule-status.js';
import { formatFireTime, wallTime } from '../cron-calendar/fire-time.js';

/** A schedule's identity as `schedules list` prints it. */
export interface ScheduleHeader {
  name: string;
  cron: string;
  timezone: string;
}

function utcText(at: number): string {
  const utc = wallTime(at, 'UTC');
  return `${utc.date} ${utc.time} UTC`;
}

/** The first line of a schedule: active, paused (why, since when, how to resume) or disabled. */
function stateText(status: ScheduleStatus): string {
  const parts: string[] = [];
  if (!status.enabled) parts.push('disabled (enabled: false) — fires only with `schedules trigger`');
  if (status.paused) {
    const since = status.pause?.at ? ` since ${utcText(status.pause.at)}` : '';
    const why = status.pause?.reason ? ` (${status.pause.reason})` : '';
    parts.push(`PAUSED${since}${why} — resume with \`agent-bridge schedules resume ${status.name}\``);
  }
  return parts.length > 0 ? parts.join('; ') : 'active';
}

function lastText(status: ScheduleStatus): string {
  const last = status.last;
  if (!last) return 'never fired';
  const slot = `slot ${last.slot}`;
  const fired = `${slot}, fired ${utcText(last.firedAt)}`;
  const reason = last.reason ? ` — ${last.reason}` : '';
  switch (last.status) {
    case 'missed':
      return `${slot}: missed${reason}`;
    case 'skipped':
      return `${fired}: skipped${reason}`;
    case 'recorded':
      return `${fired}: being started`;
    default:
      if (last.outcome === 'starting') return `${fired}: starting (the service creates the run)`;
      if (last.runId) return `${fired}: run ${last.runId} ${last.outcome ?? ''}`.trimEnd();
      return `${fired}: ${last.outcome ?? last.status}${reason}`;
  }
}

/** The text of `schedules list`: a block per schedule. */
export function renderScheduleList(entries: Array<{ header: ScheduleHeader; status: ScheduleStatus }>): string {
  return entries
    .map(({ header, status }) => {
      const next = status.next.map((slot) => formatFireTime(slot.at, header.timezone));
      return [
        `${header.name}: ${stateText(status)}`,
        `  cron:  ${header.cron} (${header.timezone})`,
        `  next:  ${next[0] ?? 'never (the expression matches no future date)'}`,
        ...next.slice(1).map((line) => `         ${line}`),
        `  last:  ${lastText(status)}`,
      ].join('\n');
    })
    .join('\n\n');
}

/** One schedule as `schedules list --json` prints it: times as ISO 8601 (UTC) and as the schedule's wall time. */
export function scheduleJson(header: ScheduleHeader, status: ScheduleStatus): Record<string, unknown> {
  return {
    name: header.name,
    cron: header.cron,
    timezone: header.timezone,
    enabled: status.enabled,
    paused: status.paused,
    ...(status.pause && { paused_since: new Date(status.pause.at).toISOString(), paused_reason: status.pause.reason ?? null }),
    next: status.next.map((slot) => {
      const local = wallTime(slot.at, header.timezone);
      return {
        slot: slot.key,
        at: new Date(slot.at).toISOString(),
        local: `${local.date}T${local.time.length === 5 ? `${local.time}:00` : local.time}${local.offset}`,
      };
    }),
    last: status.last
      ? {
          slot: status.last.slot,
          fired_at: new Date(status.last.firedAt).toISOString(),
          status: status.last.status,
          reason: status.last.reason,
          run_id: status.last.runId,
          outcome: status.last.outcome ?? null,
        }
      : null,
  };
}
