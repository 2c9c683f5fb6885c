/**
 * Limits (docs/usage-and-limits.md): `limits.per_person` bounds the runs each person asks for,
 * on any surface; a route's `limits` bounds the runs of that route (by its name). 0 = no limit.
 */

export type { LimitName, Limits } from '../ports/usage-store.js';
import type { Limits } from '../ports/usage-store.js';

export const NO_LIMITS: Limits = { concurrent: 0, perDay: 0, creditsPerMonth: 0 };

/** Whether any of them is set. */
export function anyLimit(limits: Limits | undefined): limits is Limits {
  return limits !== undefined && (limits.concurrent > 0 || limits.perDay > 0 || limits.creditsPerMonth > 0);
}

const DAY_MS = 86_400_000;

/** The start of the UTC day `now` falls in. */
export function utcDayStart(now: number): number {
  return Math.floor(now / DAY_MS) * DAY_MS;
}

/** The start of the UTC month `now` falls in. */
export function utcMonthStart(now: number): number {
  const date = new Date(now);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
}

/** The start of the next UTC month. */
export function nextUtcMonthStart(now: number): number {
  const date = new Date(now);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
}
