/**
 * What the service promises people, in the settings the crash suites run it with (the tracker every
 * second, leases of 3 s: burst-fixtures.ts), and what Slack and Linear do with a delivery that gets no
 * answer. The suites' deadlines are built from these, not from how fast a quiet machine happens to be;
 * how long a whole scenario may take is a work budget, named as such.
 */

/** `tracker.interval` of the crash suites' config. */
export const TRACKER_INTERVAL_MS = 1_000;
/** The leases the crash suites give the service (LEASE_MS): a dead holder's claim is free after this. */
export const LEASE_MS = 3_000;

/**
 * Slack retries an event three times, the last about 5 minutes after the second (its retry schedule:
 * at once, after 1 minute, after 5 minutes); Linear retries for longer. An event not answered within
 * this long of its first delivery is lost to the platform: the deliveries' deadline.
 */
export const PLATFORM_GIVES_UP_MS = 6 * 60_000;

/**
 * A run's state reaches its place within this long of the run API reporting it, while at least one
 * process runs: the tracker's next tick (an interval), 5 s for the tick and the delivery themselves on
 * a busy two-core machine (as the restart suite allows a restarted process one interval + 5 s), and two
 * leases for every process killed while the state was on its way (`kills`, at least one counted): a
 * dead process's hold on the tracker, then its claim on the place's next message, run out before
 * another process takes them. Measured with one of two cores held by a busy loop: at most 5.7–13.5 s
 * over eight runs of the PostgreSQL crash suite (three replicas, five kills), 2026-11-28; the 13.5 s
 * came from a state whose tick and delivery each lost a process.
 */
export function stateShownWithinMs(kills: number): number {
  return TRACKER_INTERVAL_MS + 5_000 + 2 * LEASE_MS * Math.max(1, kills);
}

/** A kill this long before a state was reported can still hold it up: the dead process's leases. */
export const KILL_HOLDS_MS = 2 * LEASE_MS;

/** How long a scenario may go on after its burst before it is given up: a budget for a loaded machine, not a promise. */
export const WORK_BUDGET_MS = 180_000;

/** A whole crash scenario's test timeout: its burst with slow restarts, then the work budget. */
export const SCENARIO_TIMEOUT_MS = 2 * WORK_BUDGET_MS;
