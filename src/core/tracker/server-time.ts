import type { TrackedRunRepository } from '../ports/store.js';

/**
 * The run API's own timestamps (RFC 3339 `updated_at`), compared as instants. The tracker's
 * watermarks are built from these only, never from our clock (docs/architecture.md §7).
 */

/** Epoch ms of a server timestamp; undefined when absent or unreadable. */
export function instant(text: string | null | undefined): number | undefined {
  if (!text) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}

/** True when both timestamps parse and `a` is a later instant than `b`. */
export function isLater(a: string | null | undefined, b: string | null | undefined): boolean {
  const x = instant(a);
  const y = instant(b);
  return x !== undefined && y !== undefined && x > y;
}

/** The later of two server timestamps, keeping the server's own string. */
export function later(current: string | null, candidate: string | null | undefined): string | null {
  if (instant(candidate) === undefined) return current;
  return current === null || isLater(candidate, current) ? (candidate as string) : current;
}

/** The earlier of two server timestamps, keeping the server's own string. */
export function earlier(current: string | null, candidate: string | null | undefined): string | null {
  if (instant(candidate) === undefined) return current;
  return current === null || isLater(current, candidate) ? (candidate as string) : current;
}

/** How many tracked runs `earliestObservation` reads (pages of OBSERVATION_PAGE): a fresh database has few. */
const OBSERVATION_PAGES = 20;
const OBSERVATION_PAGE = 500;

/**
 * The earlier of `start` and every tracked run's last observed `updated_at`: a server time no
 * observation of a tracked run came before (each `updated_at` was current when it was read).
 */
export async function earliestObservation(trackedRuns: TrackedRunRepository, start: string): Promise<string> {
  let earliest = start;
  for (let afterRunId: string | undefined, pages = 0; pages < OBSERVATION_PAGES; pages++) {
    const page = await trackedRuns.listTracked({ limit: OBSERVATION_PAGE, ...(afterRunId !== undefined && { afterRunId }) });
    for (const run of page) earliest = earlier(earliest, run.serverUpdatedAt) ?? earliest;
    if (page.length < OBSERVATION_PAGE) break;
    afterRunId = page.at(-1)?.runId;
  }
  return earliest;
}
