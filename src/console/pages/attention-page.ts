import type { OutboxMessage } from '../../core/ports/messages.js';
import { renderText } from '../../core/outbox/render-text.js';
import type { ConsoleDeps, Viewer } from '../deps.js';
import { html, type SafeHtml } from '../html.js';
import { action, page, when } from '../layout.js';
import { person, place } from '../places.js';

const SHOWN = 200;

function text(payload: unknown, fallback: string): string {
  try {
    return renderText(payload as OutboxMessage);
  } catch {
    return fallback;
  }
}

/** Failed deliveries and failed triggers across all runs, with retry and dismiss. */
export async function attentionPage(deps: ConsoleDeps, viewer: Viewer, flash?: string): Promise<SafeHtml> {
  const [deliveries, triggers] = await Promise.all([deps.store.operator.failedDeliveries(SHOWN), deps.store.operator.failedTriggers(SHOWN)]);
  const back = '/console/attention';
  const body = html`<h1>Needs attention</h1>
    <h2>Messages that did not reach people (${deliveries.length})</h2>
    ${
      deliveries.length === 0
        ? html`<p class="muted">Every message was delivered.</p>`
        : html`<table data-testid="failed-deliveries">
            <thead>
              <tr>
                <th>Message</th>
                <th>To</th>
                <th>Error</th>
                <th>Attempts</th>
                <th>Since</th>
                <th></th>
              </tr>
            </thead>
            <tbody>
              ${deliveries.map((row) => {
                const runId = /^run:([^:]+):/.exec(row.key)?.[1];
                return html`<tr data-delivery="${row.id}">
                  <td><bdi>${text(row.payload, row.kind)}</bdi>${runId ? html` <a href="/console/run?id=${encodeURIComponent(runId)}">run</a>` : ''}</td>
                  <td><code>${row.destination}</code></td>
                  <td class="bad"><bdi>${row.lastError ?? '—'}</bdi></td>
                  <td>${row.attempts}</td>
                  <td>${when(row.createdAt)}</td>
                  <td>
                    ${action('/console/delivery/retry', 'Retry', viewer.csrf, { id: row.id, back })}
                    ${action('/console/delivery/dismiss', 'Dismiss', viewer.csrf, { id: row.id, back })}
                  </td>
                </tr>`;
              })}
            </tbody>
          </table>`
    }
    <h2>Requests that could not be carried out (${triggers.length})</h2>
    ${
      triggers.length === 0
        ? html`<p class="muted">No failed requests.</p>`
        : html`<table data-testid="failed-triggers">
            <thead>
              <tr>
                <th>Request</th>
                <th>Asked in</th>
                <th>By</th>
                <th>Error</th>
                <th>Received</th>
                <th></th>
              </tr>
            </thead>
            <tbody>
              ${triggers.map(
                (trigger) =>
                  html`<tr data-trigger="${trigger.id}">
                    <td>${trigger.kind}${trigger.kind === 'start' ? html`: <bdi>${trigger.payload.title}</bdi>` : ''}</td>
                    <td>${place(trigger.anchor, trigger.source)}</td>
                    <td>${person(trigger.payload.requester)}</td>
                    <td class="bad"><bdi>${trigger.lastError ?? '—'}</bdi></td>
                    <td>${when(trigger.receivedAt)}</td>
                    <td>
                      ${action('/console/trigger/retry', 'Retry', viewer.csrf, { id: trigger.id, back })}
                      ${action('/console/trigger/dismiss', 'Dismiss', viewer.csrf, { id: trigger.id, back })}
                    </td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }`;
  return page({ title: 'Needs attention', section: 'attention', csrf: viewer.csrf, body, flash });
}
