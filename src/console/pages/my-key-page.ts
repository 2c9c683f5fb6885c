import type { ConsoleDeps, Viewer } from '../deps.js';
import { html, type SafeHtml } from '../html.js';
import { page, when } from '../layout.js';
import { MY_KEY_PATH } from '../../people/key-page.js';
import { formatCredits, ownUsage } from '../../core/usage/usage-report.js';
import { figuresTable } from './usage-page.js';

/**
 * A person's own key page: someone signed in as themselves pastes their personal API key here (never
 * into a chat), sees its last 4 characters, when it was connected and last used, and can disconnect
 * it. `/agent connect` links this page.
 */
export async function myKeyPage(deps: ConsoleDeps, viewer: Viewer, flash: string | undefined): Promise<SafeHtml> {
  const usage = viewer.person ? await ownUsageSection(deps, viewer.person.id) : html``;
  const shell = (body: SafeHtml) =>
    page({ title: 'Your key', section: 'me', csrf: viewer.csrf, viewer, flash, body: html`${body} ${usage}`, refreshSeconds: 30 });
  if (!viewer.person) {
    return shell(html`<h1>Your personal API key</h1>
      <p>
        You signed in with the admin token, which belongs to nobody: sign in as yourself to connect your own key, or connect one for someone on
        <a href="/console/keys">Keys</a>.
      </p>`);
  }
  if (!deps.keys) {
    return shell(html`<h1>Your personal API key</h1>
      <p>Personal keys are off on this service (<code>AGENT_BRIDGE_SECRET</code> is not set): runs you ask for use the service's key.</p>`);
  }
  const key = await deps.keys.people.summary(viewer.person.id);
  const current = key
    ? html`<dl data-testid="my-key">
          <dt>Key</dt>
          <dd><code>…${key.lastFour}</code></dd>
          <dt>Connected</dt>
          <dd>${when(key.connectedAt)}</dd>
          <dt>Last used</dt>
          <dd>${key.lastUsedAt === null ? 'not yet' : when(key.lastUsedAt)}</dd>
        </dl>
        <form method="post" action="${MY_KEY_PATH}/disconnect">
          <input type="hidden" name="csrf" value="${viewer.csrf}" />
          <button type="submit">Disconnect</button>
        </form>`
    : html`<p data-testid="my-key">No key is connected: runs you ask for use the service's key (or are refused, if this service requires your own).</p>`;
  return shell(html`<h1>Your personal API key</h1>
    <p>
      With your key connected, the runs you ask for, wherever you ask, are yours in the run API. It is checked with one call to the run API before it
      is saved, stored sealed, and only its last 4 characters are ever shown. Paste it here, never in a chat.
    </p>
    ${current}
    <h2>${key ? 'Replace it' : 'Connect your key'}</h2>
    <form method="post" action="${MY_KEY_PATH}/connect" autocomplete="off">
      <input type="hidden" name="csrf" value="${viewer.csrf}" />
      <label>Personal API key <input name="key" type="password" required maxlength="512" autocomplete="off" /></label>
      <button type="submit">Check and connect</button>
    </form>`);
}

/** The person's own usage: their runs and credits of the last 30 days, by route. */
async function ownUsageSection(deps: ConsoleDeps, personId: string): Promise<SafeHtml> {
  const report = await ownUsage(deps.store.usage, personId, deps.clock.now());
  return html`<h2>Your usage, last 30 days</h2>
    <p data-testid="my-usage">
      ${report.total.runs} run${report.total.runs === 1 ? '' : 's'}, ${formatCredits(report.total.credits)} credits (inference
      ${formatCredits(report.total.inferenceCost)}, compute ${formatCredits(report.total.computeCost)}), as the run API last reported them.
    </p>
    ${
      report.total.runs > 0
        ? figuresTable(
            'Route',
            report.groups.map((group) => ({ label: group.key ?? '—', figures: group })),
            'my-usage-routes',
          )
        : ''
    }`;
}
