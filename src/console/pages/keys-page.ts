import type { KeySummary } from '../../people/person-keys.js';
import type { ConsoleDeps, Viewer } from '../deps.js';
import { html, type SafeHtml } from '../html.js';
import { page, when } from '../layout.js';
import { linksSection } from '../people-links.js';
import { PERSON_IDS } from '../../surface-list.js';

/**
 * Everyone's personal API keys, for admins: who has one connected (only its last 4 characters), and a
 * form to connect one for a person by their person id (where no sign-in is offered, or for someone who
 * cannot sign in); the key is checked with the run API before it is saved. People connect their own on
 * their key page (`pages/my-key-page.ts`).
 */
export async function keysPage(deps: ConsoleDeps, viewer: Viewer, flash: string | undefined): Promise<SafeHtml> {
  if (!deps.keys) {
    return page({
      title: 'Keys',
      section: 'keys',
      csrf: viewer.csrf,
      flash,
      body: html`<h1>Personal API keys</h1>
        <p>Personal keys are off: set <code>AGENT_BRIDGE_SECRET</code> (at least 32 characters, e.g. <code>openssl rand -hex 32</code>) to store them sealed.</p>`,
    });
  }
  const connected: KeySummary[] = await deps.keys.people.list();
  const rows = connected.map(
    (key) =>
      html`<tr>
        <td><code>${key.personId}</code></td>
        <td><code>…${key.lastFour}</code></td>
        <td>${when(key.connectedAt)}</td>
        <td>${key.lastUsedAt === null ? 'not yet' : when(key.lastUsedAt)}</td>
        <td>
          <form class="inline" method="post" action="/console/keys/remove">
            <input type="hidden" name="csrf" value="${viewer.csrf}" />
            <input type="hidden" name="person" value="${key.personId}" />
            <button type="submit">Remove</button>
          </form>
        </td>
      </tr>`,
  );
  return page({
    title: 'Keys',
    section: 'keys',
    csrf: viewer.csrf,
    flash,
    body: html`<h1>Personal API keys</h1>
      <p>
        A connected key makes the runs its person asks for theirs in the run API. People connect their own on <a href="/console/my-key">their key
        page</a> after signing in (<code>/agent connect</code> in their chat links it); here an admin connects one for a person by their person id:
        ${PERSON_IDS.expected()}. A key is checked with the run API before it is saved, stored sealed, and only its last 4 characters are ever shown.
      </p>
      <table data-testid="keys">
        <thead>
          <tr>
            <th>Person</th>
            <th>Key</th>
            <th>Connected</th>
            <th>Last used</th>
            <th></th>
          </tr>
        </thead>
        <tbody>
          ${rows.length > 0 ? rows : html`<tr><td colspan="5" class="muted">No key is connected.</td></tr>`}
        </tbody>
      </table>
      <h2>Connect a key</h2>
      <form method="post" action="/console/keys/connect" autocomplete="off">
        <input type="hidden" name="csrf" value="${viewer.csrf}" />
        <label title="${PERSON_IDS.expected()}">Person id <input name="person" required maxlength="200" placeholder="${PERSON_IDS.example()}" /></label>
        <label>Personal API key <input name="key" type="password" required maxlength="512" /></label>
        <button type="submit">Check and connect</button>
      </form>
      ${await linksSection(deps, viewer)}`,
  });
}
