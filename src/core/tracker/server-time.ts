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
