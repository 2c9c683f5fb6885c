/**
 * Usage and limits in the `Store` port (see `store.ts` for the rules every repository
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
  /**
   * Reserves a start's room under its limits, in ONE transaction that counts and reserves (one
   * statement on PostgreSQL), so that of two starts racing for the last slot — in any processes —
   * one is reserved and the other told which limit is full. Counted: runs not ended (a reservation of
   * a trigger still being worked counts as one), runs and reservations since `dayStart`, and credits
   * of runs created since `monthStart`. A trigger that already holds a reservation keeps it (a retry).
   * Reservations older than `recent` are deleted on the way.
   */
  reserveStart(reservation: StartReservation): Promise<ReservationOutcome>;
}

/** What a start reserves: the trigger, who asked and the route, with the limits that apply to each. */
export interface StartReservation {
  triggerKey: string;
  /** Who asked (a person id) and `limits.per_person`; absent: nobody (a schedule, the CLI). */
  person?: { id: string; limits: Limits };
  /** The route's name and its own limits (none: counted, not limited). */
  route: { name: string; limits?: Limits };
  now: number;
  /** The UTC day and month `now` falls in begin here. */
  dayStart: number;
  monthStart: number;
  /** Reservations from before this are deleted (older than any trigger can still be worked). */
  recent: number;
}

/** Reserved, or the first limit without room: whose (`scope`), which, its value and what is used of it. */
export type ReservationOutcome = { reserved: true } | { reserved: false; scope: 'person' | 'route'; limit: LimitName; value: number; used: number };

/** One set of limits; every value 0 means none. */
export interface Limits {
  /** Runs not ended at once (a run revived by a follow-up counts again). */
  concurrent: number;
  /** Runs started per UTC day. */
  perDay: number;
  /** Credits (inference + compute, as last reported) of the runs started this UTC month. */
  creditsPerMonth: number;
}

/** Which limit, by its config key. */
export type LimitName = 'concurrent' | 'per_day' | 'credits_per_month';
