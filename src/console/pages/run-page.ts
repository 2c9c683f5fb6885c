import { isTerminalState } from '../../core/ports/agent-runs.js';
import type { ObservedState } from '../../core/ports/operator-store.js';
import type { OutboxMessage } from '../../core/ports/messages.js';
import type { OutboxRow, StoredTrigger, TrackedRun } from '../../core/ports/store.js';
import { renderText } from '../../core/outbox/render-text.js';
import type { ConsoleDeps, Viewer } from '../deps.js';
import { html, link, type SafeHtml } from '../html.js';
import { action, page, when } from '../layout.js';
import { place } from '../places.js';
import { asker, keyCell, peopleFacts, type PeopleFacts } from '../people-cells.js';

/** How long the page waits for the run API to quote the prompt before it says it could not. */
const PROMPT_TIMEOUT_MS = 2_000;

/** The messages owed for this run: its transitions' rows, and those of the triggers about it. */
export function belongsToRun(row: OutboxRow, runId: string, triggerKeys: readonly string[]): boolean {
  if (row.key.startsWith(`run:${runId}:`)) return true;
  return triggerKeys.some((key) => row.key.startsWith(`received:${key}:`) || row.key.endsWith(`:${key}`));
}

export async function runDeliveries(deps: ConsoleDeps, run: TrackedRun, triggers: StoredTrigger[]): Promise<OutboxRow[]> {
  const keys = triggers.map((trigger) => trigger.key);
  const destinations = [...new Set([...run.destinations, run.anchor, ...triggers.map((trigger) => trigger.anchor)])];
  const rows = (await Promise.all(destinations.map((destination) => deps.store.outbox.list({ destination })))).flat();
  return rows.filter((row) => belongsToRun(row, run.runId, keys)).sort((a, b) => a.id - b.id);
}

async function promptAsSent(deps: ConsoleDeps, runId: string): Promise<SafeHtml> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${PROMPT_TIMEOUT_MS} ms`)), PROMPT_TIMEOUT_MS);
    });
    const item = await Promise.race([deps.runs.getRun(runId), timeout]);
    if (item.prompt === undefined) return html`<p class="muted">The run API did not say what the prompt was.</p>`;
    return html`<pre class="prompt" data-testid="prompt">${item.prompt}</pre>`;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return html`<p class="muted">The run API could not quote the prompt (${typeof code === 'string' ? code : 'unavailable'}).</p>`;
  } finally {
    clearTimeout(timer);
  }
}

function requesterOf(trigger: StoredTrigger) {
  return trigger.payload.requester;
}

function deliveryOutcome(row: OutboxRow): SafeHtml {
  switch (row.state) {
    case 'sent':
      return html`<span class="ok">sent</span> ${when(row.sentAt)}`;
    case 'failed':
      return html`<span class="bad">failed</span> after ${row.attempts} attempt${row.attempts === 1 ? '' : 's'}:
        <bdi>${row.lastError ?? 'no error given'}</bdi>`;
    default:
      return html`${row.state}, attempt ${row.attempts + 1} at
      ${when(row.nextAttemptAt)}${row.lastError ? html` (last error: <bdi>${row.lastError}</bdi>)` : ''}`;
  }
}

function messageText(row: OutboxRow): string {
  try {
    return renderText(row.payload as OutboxMessage);
  } catch {
    return row.kind;
  }
}

/** The run's facts: its state (and Cancel while it runs), where and by whom it was asked, its key and session. */
function runFacts(run: TrackedRun, viewer: Viewer, starter: StoredTrigger | undefined, facts: PeopleFacts): SafeHtml {
  const ticketUrl = starter?.kind === 'start' ? starter.payload.ticket?.url : undefined;
  const canCancel = !isTerminalState(run.state);
  const askedBy = starter ? requesterOf(starter) : undefined;
  return html`<dl>
    <dt>State</dt>
    <dd>
      <span class="state state-${run.state}" data-testid="run-state">${run.state}</span>
      ${canCancel ? action('/console/run/cancel', 'Cancel run', viewer.csrf, { id: run.runId }) : ''}
    </dd>
    <dt>Run</dt>
    <dd><code>${run.runId}</code></dd>
    <dt>Asked in</dt>
    <dd>${place(run.anchor, run.source, ticketUrl)} <span class="muted">(${run.source})</span></dd>
    <dt>Places</dt>
    <dd data-testid="places">
      ${run.destinations.map((destination) => html`<div>${place(destination, run.source, destination === run.anchor ? ticketUrl : undefined)}</div>`)}
    </dd>
    <dt>Asked by</dt>
    <dd>${asker(askedBy, facts)}</dd>
    <dt>Runs under</dt>
    <dd data-testid="run-key">${keyCell({ personalKeyOwner: run.personalKeyOwner ?? null, requester: askedBy ?? null }, facts)}</dd>
    <dt>Started</dt>
    <dd>${when(run.createdAt)}</dd>
    <dt>Session</dt>
    <dd>${run.sessionLink ? link(run.sessionLink, run.sessionLink) : html`<span class="muted">none yet</span>`}</dd>
  </dl>`;
}

/** Every state the tracker saw, in order. */
function statesTable(states: ObservedState[]): SafeHtml {
  return html`<table data-testid="states">
    <thead>
      <tr>
        <th>#</th>
        <th>State</th>
        <th>Observed</th>
        <th>Run API time</th>
      </tr>
    </thead>
    <tbody>
      ${states.map(
        (state) =>
          html`<tr>
            <td>${state.transition}</td>
            <td class="state state-${state.state}">${state.state}</td>
            <td>${when(state.observedAt)}</td>
            <td>${state.serverUpdatedAt ?? '—'}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** The triggers about the run: the start, follow-ups and cancels, and what became of each. */
function triggersTable(triggers: StoredTrigger[], facts: PeopleFacts): SafeHtml {
  return html`<table data-testid="triggers">
    <thead>
      <tr>
        <th>Kind</th>
        <th>From</th>
        <th>By</th>
        <th>Received</th>
        <th>Outcome</th>
      </tr>
    </thead>
    <tbody>
      ${triggers.map(
        (trigger) =>
          html`<tr>
            <td>${trigger.kind}</td>
            <td>${trigger.source}</td>
            <td>${asker(requesterOf(trigger), facts)}</td>
            <td>${when(trigger.receivedAt)}</td>
            <td class="state-${trigger.state}">${trigger.state}${trigger.lastError ? html`: <bdi>${trigger.lastError}</bdi>` : ''}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** The messages owed to people about the run, with Retry for admins on a failed one. */
function deliveriesTable(deliveries: OutboxRow[], viewer: Viewer, run: TrackedRun): SafeHtml {
  return html`<table data-testid="deliveries">
    <thead>
      <tr>
        <th>Message</th>
        <th>To</th>
        <th>What became of it</th>
        <th></th>
      </tr>
    </thead>
    <tbody>
      ${deliveries.map(
        (row) =>
          html`<tr data-delivery="${row.id}">
            <td><bdi>${messageText(row)}</bdi></td>
            <td><code>${row.destination}</code></td>
            <td>${deliveryOutcome(row)}</td>
            <td>
              ${row.state === 'failed' && viewer.admin ? action('/console/delivery/retry', 'Retry', viewer.csrf, { id: row.id, back: `/console/run?id=${run.runId}` }) : ''}
            </td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** The page of one run, or undefined when no such run is tracked. */
export async function runPage(deps: ConsoleDeps, viewer: Viewer, runId: string, flash?: string): Promise<SafeHtml | undefined> {
  const run = await deps.store.trackedRuns.get(runId);
  if (!run) return undefined;
  const [states, triggers] = await Promise.all([deps.store.operator.states(runId), deps.store.operator.triggersOfRun(runId, run.triggerKey)]);
  const [deliveries, prompt] = await Promise.all([runDeliveries(deps, run, triggers), promptAsSent(deps, runId)]);
  const starter = triggers.find((trigger) => trigger.key === run.triggerKey);
  const askedBy = starter ? requesterOf(starter) : undefined;
  const facts = await peopleFacts(deps, [askedBy?.id, run.personalKeyOwner, ...triggers.map((trigger) => requesterOf(trigger)?.id)]);

  const body = html`<h1><bdi>${run.title ?? run.runId}</bdi></h1>
    ${runFacts(run, viewer, starter, facts)}
    <h2>States observed</h2>
    ${statesTable(states)}
    <h2>Triggers</h2>
    ${triggersTable(triggers, facts)}
    <h2>Messages owed to people</h2>
    ${deliveriesTable(deliveries, viewer, run)}
    <h2>Prompt as sent</h2>
    ${prompt}`;
  return page({ title: run.title ?? run.runId, section: 'runs', csrf: viewer.csrf, viewer, body, flash });
}
