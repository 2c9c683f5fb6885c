/**
 * `/console/runs/starting?request=<id>`: a request made with New run until its run exists. The run id
 * is known only once the intake worker created the run, so this page reloads itself every second and
 * leads to the run's page as soon as there is one; a request that did not start says why, with the
 * messages it owes people (a refused key, a limit reached, an approval asked for).
 */
import type { OutboxMessage } from '../../core/ports/messages.js';
import type { StoredTrigger } from '../../core/ports/store.js';
import { renderText } from '../../core/outbox/render-text.js';
import type { ConsoleDeps, Viewer } from '../deps.js';
import { html, type SafeHtml } from '../html.js';
import { page } from '../layout.js';

/** What a request that did not start became, in words, by the reason its trigger was ended with. */
const NOT_STARTED: Record<string, string> = {
  'held for approval':
    'It waits for approval: the route needs one of its approvers to approve it (each was asked in their chat). Once approved, the run appears under Runs.',
  'no personal API key':
    'This service runs the agent under each person’s own API key (people.attribution: personal_required), and the one who asked has none connected: sign in as yourself and connect yours under Your key.',
  limit: 'A limit was reached, so no run was started.',
  'options not allowed': 'The prompt starts with options ([env=…], [model=…]) this route does not allow.',
};

function messagesOwed(rows: readonly { payload: unknown; kind: string }[]): SafeHtml {
  if (rows.length === 0) return html``;
  return html`<h2>What it says</h2>
    <ul data-testid="request-messages">
      ${rows.map((row) => html`<li><bdi>${textOf(row)}</bdi></li>`)}
    </ul>`;
}

function textOf(row: { payload: unknown; kind: string }): string {
  try {
    return renderText(row.payload as OutboxMessage);
  } catch {
    return row.kind;
  }
}

function waiting(trigger: StoredTrigger): SafeHtml {
  return html`<h1>Starting your run…</h1>
    <p data-testid="request-state">
      The request is stored (${trigger.state === 'working' ? 'the service is creating the run now' : 'waiting for the service to pick it up'}). This page
      follows it and opens the run as soon as it exists.
    </p>
    <p class="muted">
      If it stays here, no running agent-bridge service is working this database: check that <code>npm start</code> (or
      <code>agent-bridge serve</code>) runs.
    </p>`;
}

/** The page for the request `id` (trigger `console:<id>`): the run's page once it exists, else its state. */
export async function startingPage(deps: ConsoleDeps, viewer: Viewer, trigger: StoredTrigger): Promise<SafeHtml | { redirect: string }> {
  if (trigger.runId) return { redirect: `/console/run?id=${encodeURIComponent(trigger.runId)}` };
  const title = trigger.kind === 'start' ? trigger.payload.title : trigger.key;
  const pending = trigger.state === 'pending' || trigger.state === 'working';
  const owed = pending ? [] : await deps.store.outbox.list({ destination: trigger.anchor });
  const reason = trigger.lastError ?? '';
  const body = pending
    ? waiting(trigger)
    : html`<h1>${reason === 'held for approval' ? 'Waiting for approval' : 'Not started'}</h1>
        <p data-testid="request-state">
          ${NOT_STARTED[reason] ?? (trigger.state === 'failed' ? `The run could not be started: ${reason || 'no reason given'}.` : reason)}
        </p>
        ${messagesOwed(owed)}
        <p><a href="/console/runs/new">New run</a></p>`;
  return page({
    title: 'Starting run',
    section: 'runs',
    csrf: viewer.csrf,
    viewer,
    body: html`<p class="muted">Request: <bdi>${title}</bdi></p>
      ${body}`,
    refreshSeconds: 0,
    ...(pending && { reloadSeconds: 1 }),
  });
}
