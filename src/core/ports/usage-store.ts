/**
 * Usage and limits in the `Store` port (issue 31; see `store.ts` for the rules every repository
 * keeps): the credits runs used, summed by who asked, route, source and day, and the reservation that
 * lets a start go ahead only while its limits have room.
 */

/** What usage is summed by: who asked (a person id), the route's name, or the source (a surface's name, `schedule`, `cli`). */
export const USAGE_GROUPINGS = ['person', 'route', 'source'] as const;
export type UsageGrouping = (typeof USAGE_GROUPINGS)[number];

/** The runs one group created on one UTC day, and the credits they used (as last reported). */
export interface UsageSum {
  /** The person id, route name or source; null for runs without one (a schedule has no person). */
  key: string | null;
  /** The UTC day the runs were created, `YYYY-MM-DD`. */
  day: string;
  runs: number;
  inferenceCost: number;
  computeCost: number;
}

/** The runs of one source since the database began, and their credits (`/metrics`). */
export interface UsageTotal {
  source: string;
  runs: number;
  inferenceCost: number;
  computeCost: number;
}

/** Reads of usage; every method is one statement. */
export interface UsageRepository {
  /**
   * Runs created at or after `since` (epoch ms), summed by `by` and UTC day, ordered by day, then key
   * (null last). `person` narrows it to the runs that person asked for.
   */
  sums(query: { by: UsageGrouping; since: number; person?: string }): Promise<UsageSum[]>;
  /** Every run ever stored, summed by source, in source order. */
  totals(): Promise<UsageTotal[]>;
}
