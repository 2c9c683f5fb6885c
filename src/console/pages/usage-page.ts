/**
 * `/console/usage` (admins): runs and credits in a recent window by person, route or source,
 * with credits per UTC day as a chart and the same figures in a table. Credits are the run API's
 * `request_usage` (inference + compute) as the tracker last recorded them.
 */
import { parseDuration } from '../../config-kit/duration.js';
import { USAGE_GROUPINGS, type UsageGrouping } from '../../core/ports/store.js';
import { formatCredits, usageReport, type UsageFigures, type UsageReport } from '../../core/usage/usage-report.js';
import type { ConsoleDeps, Viewer } from '../deps.js';
import { html, type SafeHtml } from '../html.js';
import { page } from '../layout.js';
import { asker, peopleFacts } from '../people-cells.js';
import { usageChart } from '../usage-chart.js';

/** The windows offered; another `since` in the query that parses as a duration is shown too. */
const WINDOWS = ['1d', '7d', '30d', '90d'];
const LABELS: Record<UsageGrouping, string> = { person: 'Person', route: 'Route', source: 'Source' };
const NO_KEY: Record<UsageGrouping, string> = { person: 'nobody (schedules, CLI)', route: '—', source: '—' };
/** At most a year back: the sums are one statement, but a page of every day since the beginning reads nothing. */
const MAX_WINDOW_MS = 366 * 86_400_000;

export async function usagePage(deps: ConsoleDeps, viewer: Viewer, query: URLSearchParams): Promise<SafeHtml> {
  const by = USAGE_GROUPINGS.find((grouping) => grouping === query.get('by')) ?? 'person';
  const asked = query.get('since') ?? '30d';
  const parsed = parseDuration(asked);
  const since = parsed !== undefined && parsed > 0 && parsed <= MAX_WINDOW_MS ? asked : '30d';
  const until = deps.clock.now();
  const range = { by, since: until - (parseDuration(since) ?? 0), until };
  const report = usageReport(await deps.store.usage.sums({ by: range.by, since: range.since }), range);
  const facts =
    by === 'person'
      ? await peopleFacts(
          deps,
          report.groups.map((group) => group.key),
        )
      : undefined;
  const name = (key: string | null): SafeHtml | string => (key === null ? NO_KEY[by] : facts ? asker({ id: key }, facts) : html`<bdi>${key}</bdi>`);
  const windows = WINDOWS.includes(since) ? WINDOWS : [...WINDOWS, since];
  const body = html`<h1>Usage</h1>
    <form class="filters" method="get" action="/console/usage">
      <label
        >Group by
        <select name="by">
          ${USAGE_GROUPINGS.map((grouping) => html`<option value="${grouping}" ${grouping === by ? html` selected` : ''}>${LABELS[grouping]}</option>`)}
        </select></label
      >
      <label
        >Window
        <select name="since">
          ${windows.map((window) => html`<option value="${window}" ${window === since ? html` selected` : ''}>last ${window}</option>`)}
        </select></label
      >
      <button type="submit">Show</button>
    </form>
    ${report.total.runs === 0 ? noUsage(since) : figures(report, LABELS[by], name, since)}`;
  return page({ title: 'Usage', section: 'usage', csrf: viewer.csrf, viewer, body, refreshSeconds: 60 });
}

/** An empty window in one sentence: a chart of flat bars and tables of zeros would say the same at length. */
function noUsage(since: string): SafeHtml {
  return html`<p data-testid="usage-empty">
    No usage yet in the last ${since}: no run was started in this window. Runs show here with their credits once the tracker has seen them (start
    one from <a href="/console/runs/new">New run</a>).
  </p>`;
}

/** The window's totals, the chart of every day, the groups, and the days that had runs. */
function figures(report: UsageReport, label: string, name: (key: string | null) => SafeHtml | string, since: string): SafeHtml {
  return html`<p data-testid="usage-total">
      ${report.total.runs} run${report.total.runs === 1 ? '' : 's'} and ${formatCredits(report.total.credits)} credits in the last ${since} (inference
      ${formatCredits(report.total.inferenceCost)}, compute ${formatCredits(report.total.computeCost)}), as the run API last reported them.
    </p>
    ${usageChart(report, 'usage-chart-title')}
    <h2>By ${label.toLowerCase()}</h2>
    ${figuresTable(
      label,
      report.groups.map((group) => ({ label: name(group.key), figures: group })),
      'usage-groups',
    )}
    <h2>By day (UTC)</h2>
    <p class="muted">Days with runs; the chart above shows every day of the window.</p>
    ${figuresTable(
      'Day',
      report.days.filter((day) => day.runs > 0).map((day) => ({ label: day.day, figures: day })),
      'usage-days',
    )}`;
}

/** A table of figures: one row per group or day, credits split into inference and compute. */
export function figuresTable(first: string, rows: Array<{ label: SafeHtml | string; figures: UsageFigures }>, testId: string): SafeHtml {
  if (rows.length === 0) return html`<p class="muted" data-testid="${testId}">No runs in this window.</p>`;
  return html`<table data-testid="${testId}">
    <thead>
      <tr>
        <th>${first}</th>
        <th>Runs</th>
        <th>Credits</th>
        <th>Inference</th>
        <th>Compute</th>
      </tr>
    </thead>
    <tbody>
      ${rows.map(
        ({ label, figures }) =>
          html`<tr>
            <td>${label}</td>
            <td>${figures.runs}</td>
            <td>${formatCredits(figures.credits)}</td>
            <td>${formatCredits(figures.inferenceCost)}</td>
            <td>${formatCredits(figures.computeCost)}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}
