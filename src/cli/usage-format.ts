/** How `agent-bridge usage` prints a report: a table by group, then one line per UTC day; or JSON. */
import { formatCredits, type UsageFigures, type UsageReport } from '../core/usage/usage-report.js';

/** What a group without a key is called: runs nobody asked for (schedules, the command line). */
const NO_KEY = { person: '(schedule or CLI)', route: '(none)', source: '(none)' } as const;

export function renderUsage(report: UsageReport, window: string): string {
  const when = `${new Date(report.since).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const head = `Usage by ${report.by} since ${when} (${window}): ${countRuns(report.total.runs)}, ${formatCredits(report.total.credits)} credits`;
  if (report.total.runs === 0) return head;
  const groups = table(
    [report.by, 'runs', 'credits', 'inference', 'compute'],
    report.groups.map((group) => [group.key ?? NO_KEY[report.by], ...figures(group)]),
  );
  const days = table(
    ['day (UTC)', 'runs', 'credits', 'inference', 'compute'],
    report.days.filter((day) => day.runs > 0).map((day) => [day.day, ...figures(day)]),
  );
  return [head, '', groups, '', days].join('\n');
}

/** The report as `--json` prints it: every figure a number, times as RFC 3339. */
export function usageJson(report: UsageReport) {
  return {
    by: report.by,
    since: new Date(report.since).toISOString(),
    until: new Date(report.until).toISOString(),
    total: report.total,
    groups: report.groups,
    days: report.days,
  };
}

function figures(row: UsageFigures): string[] {
  return [String(row.runs), formatCredits(row.credits), formatCredits(row.inferenceCost), formatCredits(row.computeCost)];
}

function countRuns(runs: number): string {
  return runs === 1 ? '1 run' : `${runs} runs`;
}

/** Left-aligned first column, right-aligned numbers. */
function table(header: string[], rows: string[][]): string {
  const all = [header, ...rows];
  const widths = header.map((_, column) => Math.max(...all.map((row) => (row[column] ?? '').length)));
  return all
    .map((row) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join('  '))
    .map((line) => line.trimEnd())
    .join('\n');
}
