import type { RunCursor, RunFilter, RunListItem } from '../../core/ports/store.js';
import type { ConsoleDeps, Viewer } from '../deps.js';
import { html, link, type SafeHtml } from '../html.js';
import { page, when } from '../layout.js';
import { place } from '../places.js';
import { asker, keyCell, peopleFacts } from '../people-cells.js';
import { personIdsFor } from '../person-filter.js';
import { SURFACE_MODULES } from '../../surface-list.js';

export const RUNS_PAGE_SIZE = 50;
type Choice = { value: string; label: string };

// Every registered surface, then the sources that are no surface: a hand-written list missed surfaces added later.
const SOURCES: readonly Choice[] = [
  ...SURFACE_MODULES.map((surface) => ({ value: surface.name, label: surface.title })),
  { value: 'schedule', label: 'Schedule' },
  { value: 'cli', label: 'Command line' },
  { value: 'console', label: 'Console' },
];
const STATES: readonly Choice[] = ['QUEUED', 'PENDING', 'CLAIMED', 'INPROGRESS', 'BLOCKED', 'SUCCEEDED', 'FAILED', 'ERROR', 'CANCELLED'].map((state) => ({
  value: state,
  label: state,
}));
const FILTER_LIMIT = 200;

/** The runs page's query: filters (each cut to a sane length) and the page's starting point. */
export function runsQuery(query: URLSearchParams): RunFilter & { after?: RunCursor } {
  const text = (name: string) => {
    const value = query.get(name)?.trim().slice(0, FILTER_LIMIT);
    return value ? value : undefined;
  };
  const filter: RunFilter & { after?: RunCursor } = {};
  const pairs: Array<[Exclude<keyof RunFilter, 'personIds' | 'ownedAs'>, string]> = [
    ['source', 'source'],
    ['state', 'state'],
    ['routeName', 'route'],
    ['person', 'person'],
    ['text', 'q'],
  ];
  for (const [key, name] of pairs) {
    const value = text(name);
    if (value) filter[key] = value;
  }
  const after = /^(\d{1,16})~(.+)$/.exec(query.get('after') ?? '');
  if (after) filter.after = { createdAt: Number(after[1]), runId: after[2] ?? '' };
  return filter;
}

function nextPageHref(query: URLSearchParams, last: RunListItem): string {
  const next = new URLSearchParams(query);
  next.set('after', `${last.createdAt}~${last.runId}`);
  return `/console/runs?${next.toString()}`;
}

function options(choices: readonly Choice[], selected: string | undefined): SafeHtml[] {
  return [
    html`<option value="">any</option>`,
    ...choices.map(({ value, label }) => html`<option value="${value}" ${value === selected ? html` selected` : ''}>${label}</option>`),
  ];
}

/** Where runs may be asked for, in words: `Slack, Linear, … or Jira`. */
const ASKED_IN = SURFACE_MODULES.map((surface) => surface.title)
  .join(', ')
  .replace(/, (?=[^,]*$)/, ' or ');

/** The empty list: what matched nothing, and how a first run is started. */
function noRuns(filter: RunFilter & { after?: RunCursor }): SafeHtml {
  const filtered = Object.keys(filter).length > 0;
  return html`<div data-testid="no-runs">
    <p class="muted">No runs${filter.after ? ' after this point' : ''} match${filtered ? ' these filters' : ''}.</p>
    <p>
      Start one with <a href="/console/runs/new">New run</a>, or from a terminal beside this service:
      <code>npx agent-bridge run "hello"</code>. Runs asked for in ${ASKED_IN} and the schedules' runs show here too.
    </p>
  </div>`;
}

export async function runsPage(deps: ConsoleDeps, viewer: Viewer, query: URLSearchParams, flash?: string): Promise<SafeHtml> {
  const filter = runsQuery(query);
  const personIds = filter.person ? personIdsFor(filter.person, deps.names) : [];
  const found = await deps.store.operator.listRuns({ ...filter, ...(personIds.length > 0 && { personIds }), limit: RUNS_PAGE_SIZE + 1 });
  const runs = found.slice(0, RUNS_PAGE_SIZE);
  const last = runs[runs.length - 1];
  const facts = await peopleFacts(deps, [...runs.map((run) => run.requester.id), ...runs.map((run) => run.personalKeyOwner)]);
  const rows = runs.map(
    (run) =>
      html`<tr data-run="${run.runId}">
        <td>
          <a href="/console/run?id=${encodeURIComponent(run.runId)}"><bdi>${run.title ?? run.runId}</bdi></a>
        </td>
        <td><span class="state state-${run.state}">${run.state}</span></td>
        <td>${place(run.anchor, run.source)}</td>
        <td>${asker(run.requester, facts)}</td>
        <td>${keyCell(run, facts)}</td>
        <td>${when(run.createdAt)}</td>
        <td>${when(run.updatedAt)}</td>
        <td>${run.sessionLink ? link(run.sessionLink, 'session') : html`<span class="muted">—</span>`}</td>
      </tr>`,
  );
  const body = html`<h1>Runs <a class="button" href="/console/runs/new" data-testid="new-run">New run</a></h1>
    <form class="filters" method="get" action="/console/runs">
      <label
        >Source
        <select name="source">
          ${options(SOURCES, filter.source)}
        </select></label
      >
      <label
        >State
        <select name="state">
          ${options(STATES, filter.state)}
        </select></label
      >
      <label>Route name <input name="route" value="${filter.routeName ?? ''}" /></label>
      <label>Person <input name="person" value="${filter.person ?? ''}" /></label>
      <label>Title contains <input name="q" value="${filter.text ?? ''}" /></label>
      <button type="submit">Filter</button> <a href="/console/runs">clear</a>
    </form>
    <table>
      <thead>
        <tr>
          <th>Title</th>
          <th>State</th>
          <th>Asked in</th>
          <th>Asked by</th>
          <th>Key</th>
          <th>Started</th>
          <th>Last change</th>
          <th>Session</th>
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>
    ${runs.length === 0 ? noRuns(filter) : ''}
    <p>
      ${filter.after ? html`<a href="/console/runs">newest</a> · ` : ''}${found.length > RUNS_PAGE_SIZE && last ? html`<a href="${nextPageHref(query, last)}" rel="next">older runs →</a>` : ''}
    </p>`;
  return page({ title: viewer.admin ? 'Runs' : 'Your runs', section: 'runs', csrf: viewer.csrf, viewer, body, flash });
}
