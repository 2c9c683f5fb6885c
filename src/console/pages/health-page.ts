import type { ConsoleDeps, Viewer } from '../deps.js';
import { html, type SafeHtml } from '../html.js';
import { page, when } from '../layout.js';

export async function healthPage(deps: ConsoleDeps, viewer: Viewer): Promise<SafeHtml> {
  const [report, outbox, triggers, tracked] = await Promise.all([
    deps.health(),
    deps.store.outbox.counts(),
    deps.store.triggers.countByState(),
    deps.store.trackedRuns.countTracked(),
  ]);
  const tick = report.tracker;
  const body = html`<h1>Health</h1>
    <h2>Integrations</h2>
    <table data-testid="integrations">
      <tbody>
        ${report.integrations.map(
          (item) =>
            html`<tr>
              <td>${item.name}</td>
              <td class="${item.on ? 'ok' : 'muted'}">${item.on ? 'on' : 'off'}</td>
              <td>${item.why}</td>
            </tr>`,
        )}
      </tbody>
    </table>
    <h2>Work</h2>
    <dl>
      <dt>Tracker</dt>
      <dd>
        ${tick.lastTickAt === null ? 'no tick in this process yet' : html`last tick ${when(tick.lastTickAt)}: ${tick.requests} run-API request(s), ${tick.changed} change(s), ${tick.tracked} tracked`}
        · every ${tick.intervalMs / 1000} s
      </dd>
      <dt>Runs tracked</dt>
      <dd>${tracked}</dd>
      <dt>Outbox</dt>
      <dd data-testid="outbox">${outbox.pending} pending, ${outbox.sending} sending, ${outbox.sent} sent, ${outbox.failed} failed</dd>
      <dt>Requests</dt>
      <dd>${triggers.pending} pending, ${triggers.working} working, ${triggers.done} done, ${triggers.failed} failed, ${triggers.ignored} ignored</dd>
    </dl>
    <h2>Service</h2>
    <dl>
      <dt>Version</dt>
      <dd>${report.version}</dd>
      <dt>Store</dt>
      <dd>${report.store}</dd>
      <dt>Run API</dt>
      <dd>${report.runApi}</dd>
    </dl>`;
  return page({ title: 'Health', section: 'health', csrf: viewer.csrf, body });
}
