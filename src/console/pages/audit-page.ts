import { AUDIT_ACTS, isAuditAct, type AuditCursor, type AuditFilter, type StoredAuditEntry } from '../../core/ports/store.js';
import type { ConsoleDeps, Viewer } from '../deps.js';
import { html, type SafeHtml } from '../html.js';
import { page, when } from '../layout.js';

export const AUDIT_PAGE_SIZE = 50;
const PERSON_LIMIT = 64;

/** The audit page's query: person and act filters (an unknown act is no filter) and the page's starting point. */
export function auditQuery(query: URLSearchParams): AuditFilter & { after?: AuditCursor } {
  const filter: AuditFilter & { after?: AuditCursor } = {};
  const person = query.get('person')?.trim().slice(0, PERSON_LIMIT);
  if (person) filter.personId = person;
  const act = query.get('act') ?? '';
  if (isAuditAct(act)) filter.act = act;
  const after = /^(\d{1,16})~(\d{1,16})$/.exec(query.get('after') ?? '');
  if (after) filter.after = { at: Number(after[1]), id: Number(after[2]) };
  return filter;
}

function nextPageHref(query: URLSearchParams, last: StoredAuditEntry): string {
  const next = new URLSearchParams(query);
  next.set('after', `${last.at}~${last.id}`);
  return `/console/audit?${next.toString()}`;
}

/** An entry's short facts as `name: value` pairs. */
function facts(entry: StoredAuditEntry): SafeHtml[] {
  return Object.entries(entry.detail ?? {}).map(([name, value]) => html`<span class="fact">${name}: <code>${String(value)}</code></span> `);
}

/** The admins' audit trail: who did what when, newest first, by person and act. */
export async function auditPage(deps: ConsoleDeps, viewer: Viewer, query: URLSearchParams): Promise<SafeHtml> {
  const filter = auditQuery(query);
  const found = await deps.store.audit.list({ ...filter, limit: AUDIT_PAGE_SIZE + 1 });
  const entries = found.slice(0, AUDIT_PAGE_SIZE);
  const last = entries[entries.length - 1];
  const names = deps.names
    ? await deps.names.of([...new Set(entries.flatMap((entry) => (entry.personId ? [entry.personId] : [])))])
    : new Map<string, string>();
  const nameOf = (personId: string) => {
    const name = names.get(personId);
    return name ? html` <bdi class="muted">${name}</bdi>` : '';
  };
  const rows = entries.map(
    (entry) =>
      html`<tr data-act="${entry.act}">
        <td>${when(entry.at)}</td>
        <td><code>${entry.act}</code></td>
        <td>${entry.personId ? html`<code>${entry.personId}</code>${nameOf(entry.personId)}` : html`<span class="muted">—</span>`}</td>
        <td>${entry.surface}</td>
        <td>${entry.runId ? html`<a href="/console/run?id=${encodeURIComponent(entry.runId)}"><code>${entry.runId}</code></a>` : html`<span class="muted">—</span>`}</td>
        <td>${facts(entry)}</td>
      </tr>`,
  );
  const acts = [
    html`<option value="">any</option>`,
    ...AUDIT_ACTS.map((act) => html`<option value="${act}" ${act === filter.act ? html` selected` : ''}>${act}</option>`),
  ];
  const body = html`<h1>Audit trail</h1>
    <p class="muted">Every act that changed something, newest first. Kept for <code>audit.retention</code>; never a prompt, a message or a key.</p>
    <form class="filters" method="get" action="/console/audit">
      <label>Person <input name="person" value="${filter.personId ?? ''}" placeholder="U0123ABCD" /></label>
      <label
        >Act
        <select name="act">
          ${acts}
        </select></label
      >
      <button type="submit">Filter</button> <a href="/console/audit">clear</a>
    </form>
    <table>
      <thead>
        <tr>
          <th>When</th>
          <th>Act</th>
          <th>Who</th>
          <th>Where</th>
          <th>Run</th>
          <th>Why</th>
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>
    ${entries.length === 0 ? html`<p class="muted">No entries${filter.after ? ' after this point' : ''} match.</p>` : ''}
    <p>
      ${filter.after ? html`<a href="/console/audit">newest</a> · ` : ''}${found.length > AUDIT_PAGE_SIZE && last ? html`<a href="${nextPageHref(query, last)}" rel="next">older entries →</a>` : ''}
    </p>`;
  return page({ title: 'Audit trail', section: 'audit', csrf: viewer.csrf, viewer, body });
}
