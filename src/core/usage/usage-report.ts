/**
 * A usage report: the store's sums by group and UTC day (`UsageRepository.sums`) folded
 * into what the CLI, the console and a person's own views show — each group's total, each day's
 * total, and the whole. Credits are inference + compute.
 */
import type { UsageGrouping, UsageRepository, UsageSum } from '../ports/usage-store.js';

/** Runs and credits of a group, a day or the whole. */
export interface UsageFigures {
  runs: number;
  inferenceCost: number;
  computeCost: number;
  credits: number;
}

export interface UsageReport {
  by: UsageGrouping;
  /** Runs created from here (epoch ms) to `until` are counted. */
  since: number;
  until: number;
  /** By group, most credits first (then most runs, then key); `key` null: runs without one (a schedule has no person). */
  groups: Array<UsageFigures & { key: string | null }>;
  /** Every UTC day from `since` to `until`, oldest first, days without runs included (a chart has no gaps). */
  days: Array<UsageFigures & { day: string }>;
  total: UsageFigures;
}

const DAY_MS = 86_400_000;

/** Folds the sums of `[since, until]` by `by` into a report. */
export function usageReport(sums: readonly UsageSum[], range: { by: UsageGrouping; since: number; until: number }): UsageReport {
  const groups = new Map<string | null, UsageFigures>();
  const days = new Map<string, UsageFigures>();
  for (let day = Math.floor(range.since / DAY_MS); day <= Math.floor(range.until / DAY_MS); day++) days.set(dayName(day), zero());
  const total = zero();
  for (const sum of sums) {
    add(groups.get(sum.key) ?? groups.set(sum.key, zero()).get(sum.key)!, sum);
    add(days.get(sum.day) ?? days.set(sum.day, zero()).get(sum.day)!, sum);
    add(total, sum);
  }
  return {
    ...range,
    groups: [...groups].map(([key, figures]) => ({ key, ...rounded(figures) })).sort(mostFirst),
    days: [...days].map(([day, figures]) => ({ day, ...rounded(figures) })).sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0)),
    total: rounded(total),
  };
}

/** Credits as people read them: at most three decimals (`0.012`), no trailing zeros. */
export function formatCredits(credits: number): string {
  return String(Math.round(credits * 1000) / 1000);
}

function dayName(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

function zero(): UsageFigures {
  return { runs: 0, inferenceCost: 0, computeCost: 0, credits: 0 };
}

function add(into: UsageFigures, sum: UsageSum): void {
  into.runs += sum.runs;
  into.inferenceCost += sum.inferenceCost;
  into.computeCost += sum.computeCost;
  into.credits += sum.inferenceCost + sum.computeCost;
}

/** Sums of floating-point figures, to a millionth (0.1 + 0.2 reads 0.3). */
function rounded(figures: UsageFigures): UsageFigures {
  const round = (value: number) => Math.round(value * 1e6) / 1e6;
  return { runs: figures.runs, inferenceCost: round(figures.inferenceCost), computeCost: round(figures.computeCost), credits: round(figures.credits) };
}

function mostFirst(a: UsageFigures & { key: string | null }, b: UsageFigures & { key: string | null }): number {
  if (a.credits !== b.credits) return b.credits - a.credits;
  if (a.runs !== b.runs) return b.runs - a.runs;
  return (a.key ?? '\uffff') < (b.key ?? '\uffff') ? -1 : 1;
}

/** The window a person's own views (the Home tab, their key page) show: the last 30 days. */
export const OWN_USAGE_WINDOW_MS = 30 * DAY_MS;

/** A person's own usage over the last 30 days, by route (one statement). */
export async function ownUsage(usage: Pick<UsageRepository, 'sums'>, personId: string, now: number): Promise<UsageReport> {
  const range = { by: 'route' as const, since: now - OWN_USAGE_WINDOW_MS, until: now };
  return usageReport(await usage.sums({ by: range.by, since: range.since, person: personId }), range);
}
