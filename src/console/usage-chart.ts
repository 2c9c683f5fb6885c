/**
 * The usage page's chart: credits per UTC day as bars, drawn here as inline SVG — no
 * library, nothing fetched, nothing inline the CSP forbids (presentation attributes, not styles). It
 * is an image with a title and a description for screen readers; the same numbers are in the day table.
 */
import { formatCredits, type UsageReport } from '../core/usage/usage-report.js';
import { html, type SafeHtml } from './html.js';

const WIDTH = 720;
const HEIGHT = 160;
const AXIS = 28;

/** Bars of credits per day, the tallest day labelled; every bar carries its day and figures as a tooltip. */
export function usageChart(report: UsageReport, titleId: string): SafeHtml {
  const days = report.days;
  const most = Math.max(0, ...days.map((day) => day.credits));
  const slot = (WIDTH - AXIS) / Math.max(1, days.length);
  const bar = Math.max(1, slot * 0.8);
  const plot = HEIGHT - 20;
  const bars = days.map((day, index) => {
    const height = most > 0 ? Math.max(day.credits > 0 ? 1 : 0, (day.credits / most) * plot) : 0;
    const x = AXIS + index * slot + (slot - bar) / 2;
    return html`<rect x="${x.toFixed(1)}" y="${(plot - height).toFixed(1)}" width="${bar.toFixed(1)}" height="${height.toFixed(1)}" fill="currentColor">
      <title>${day.day}: ${formatCredits(day.credits)} credits, ${day.runs} run${day.runs === 1 ? '' : 's'}</title>
    </rect>`;
  });
  const first = days[0]?.day ?? '';
  const last = days.at(-1)?.day ?? '';
  const summary = `${days.length} days from ${first} to ${last}; most in one day: ${formatCredits(most)} credits; total ${formatCredits(report.total.credits)} credits.`;
  return html`<svg class="chart" role="img" aria-labelledby="${titleId} ${titleId}-desc" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="100%" height="${HEIGHT}"
    data-testid="usage-chart">
    <title id="${titleId}">Credits per day (UTC)</title>
    <desc id="${titleId}-desc">${summary}</desc>
    <line x1="${AXIS}" y1="${plot}" x2="${WIDTH}" y2="${plot}" stroke="currentColor" stroke-opacity="0.4" />
    <text x="0" y="10" font-size="10" fill="currentColor">${formatCredits(most)}</text>
    <text x="0" y="${plot}" font-size="10" fill="currentColor">0</text>
    <text x="${AXIS}" y="${HEIGHT - 4}" font-size="10" fill="currentColor">${first}</text>
    <text x="${WIDTH}" y="${HEIGHT - 4}" font-size="10" fill="currentColor" text-anchor="end">${last}</text>
    ${bars}
  </svg>`;
}
