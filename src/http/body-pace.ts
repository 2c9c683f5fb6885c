/**
 * How fast a request body must arrive. A trickle (a byte every few seconds) costs its sender nothing
 * and holds its share of the body budget as long as it goes on, so a body is measured, as Apache's
 * `mod_reqtimeout` (`body=10,MinRate=500`) measures it, against a deadline that starts at a grace
 * and grows with every byte that arrives: `startedAt + graceMs + received / bytesPerSecond`.
 */

const KIB = 1024;

/** A pace a body must keep: its first bytes within `graceMs`, then `bytesPerSecond` on average. */
export interface BodyPace {
  graceMs: number;
  bytesPerSecond: number;
}

/**
 * Below this pace a body is answered 408 and its connection closed, budget or not: 10 s for the
 * first bytes, then 1 KiB/s (8 kbit/s, below any real link). Genuine deliveries, a few KiB sent at
 * once, are complete within milliseconds.
 */
export const MINIMUM_BODY_PACE: BodyPace = { graceMs: 10_000, bytesPerSecond: KIB };

/**
 * Below this pace a body gives its room in the budget to one that needs it (`BodyBudget`): 1 s, then
 * 64 KiB/s — a 1 MiB body from a data centre arrives in a fraction of that, a trickle never keeps it.
 */
export const HEALTHY_BODY_PACE: BodyPace = { graceMs: 1_000, bytesPerSecond: 64 * KIB };

/** When a body that started at `startedAt` (ms) and has `received` bytes falls behind `pace` (ms, same clock). */
export function paceDeadline(startedAt: number, received: number, pace: BodyPace): number {
  return startedAt + pace.graceMs + (received * 1000) / pace.bytesPerSecond;
}

/** `pace` in words for an answer or a log line: "1 KiB/s after 10 s". */
export function describePace(pace: BodyPace): string {
  const rate = pace.bytesPerSecond % KIB === 0 ? `${pace.bytesPerSecond / KIB} KiB/s` : `${pace.bytesPerSecond} bytes/s`;
  return `${rate} after ${pace.graceMs / 1000} s`;
}
