/**
 * Linking a Linear user to a Slack user on the console (issue 20, point 4): the keys page lists the
 * links (made by an admin, or found by the same email) and Linear people seen on recent runs who are
 * not linked yet; an admin links one by Linear user id and Slack user id, or removes a link. A link
 * makes that Linear user's requests run under the Slack user's key. A GitHub login is linked the same
 * way (issue 29), kept as `github:<login>` among the links.
 */
import { SLACK_USER_ID } from '../config/validators.js';
import type { PersonLinkRecord } from '../core/ports/store.js';
import { githubLinkId } from '../people/identity.js';
import type { ConsoleDeps, Viewer } from './deps.js';
import { html, type SafeHtml } from './html.js';
import { action, when } from './layout.js';
import { peopleFacts } from './people-cells.js';

/** Linear user ids are UUIDs (checked by shape: letters and digits in 8-4-4-4-12 groups). */
export const LINEAR_USER_ID = /^[0-9a-z]{8}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{12}$/i;

/** What a link action did, shown once on the keys page (codes in the URL, words here). */
export const LINK_FLASH: Record<string, string> = {
  'link-saved': 'Linked: requests by that Linear or GitHub user now run under the Slack user’s key.',
  'link-bad-linear':
    'Not linked: that is not a Linear user ID (a UUID such as 0a1b2c3d-…; the list of Linear people below has them) nor a GitHub login (such as octocat).',
  'link-bad-slack': 'Not linked: that is not a Slack user ID (such as U0123ABCD).',
  'link-removed': 'Link removed: requests by that Linear user use the service’s key unless their email matches a Slack user’s.',
  'link-absent': 'Nothing to remove: that Linear user was not linked.',
};

/** A GitHub login as GitHub allows it: letters, digits and single hyphens, at most 39 characters. */
export const GITHUB_LOGIN = /^[a-z0-9](?:[a-z0-9-]{0,38})$/i;

/**
 * The other side of a link from the form: a Linear user id (`linear`), or a GitHub login (`github`,
 * stored as `github:<login>`, issue 29); undefined when it is neither.
 */
function otherUser(form: URLSearchParams): string | undefined {
  const github = (form.get('github') ?? '').trim().replace(/^@/, '');
  if (github !== '') return GITHUB_LOGIN.test(github) ? githubLinkId(github) : undefined;
  const linearUserId = (form.get('linear') ?? '').trim().toLowerCase();
  return LINEAR_USER_ID.test(linearUserId) ? linearUserId : undefined;
}

/** Stores an admin's link when both ids are well-formed (nothing stored otherwise); answers the flash code. */
export async function linkPeople(deps: Pick<ConsoleDeps, 'store' | 'clock' | 'logger'>, form: URLSearchParams): Promise<string> {
  const linearUserId = otherUser(form);
  const slackUserId = (form.get('slack') ?? '').trim();
  if (linearUserId === undefined) return 'link-bad-linear';
  if (!SLACK_USER_ID.test(slackUserId) || slackUserId.length > 40) return 'link-bad-slack';
  await deps.store.personLinks.put({ linearUserId, slackUserId, how: 'console', linkedAt: deps.clock.now() });
  deps.logger.info({ linearUserId, slackUserId }, 'Linear user linked to a Slack user in the console');
  return 'link-saved';
}

/** Removes a link; answers the flash code. */
export async function unlinkPeople(deps: Pick<ConsoleDeps, 'store' | 'logger'>, form: URLSearchParams): Promise<string> {
  const linearUserId = otherUser(form);
  const removed = linearUserId !== undefined && (await deps.store.personLinks.remove(linearUserId));
  if (removed) deps.logger.info({ linearUserId }, 'link of a Linear user removed in the console');
  return removed ? 'link-removed' : 'link-absent';
}

/** How many recent Linear runs are read for people not linked yet. */
const RECENT_LINEAR_RUNS = 200;

/** The keys page's section on Linear people: the links, the people seen who are not linked, and the form. */
export async function linksSection(deps: Pick<ConsoleDeps, 'store' | 'names' | 'keys'>, viewer: Viewer): Promise<SafeHtml> {
  const links: PersonLinkRecord[] = await deps.store.personLinks.list();
  const linked = new Set(links.map((link) => link.linearUserId));
  const seen = new Map<string, string>();
  for (const run of await deps.store.operator.listRuns({ source: 'linear', limit: RECENT_LINEAR_RUNS })) {
    const { id, name } = run.requester;
    if (id && LINEAR_USER_ID.test(id) && !linked.has(id) && !seen.has(id)) seen.set(id, name ?? id);
  }
  const facts = await peopleFacts(deps, [...new Set(links.map((link) => link.slackUserId))]);
  const rows = links.map(
    (link) =>
      html`<tr>
        <td>${link.linearUserId.startsWith('github:') ? html`GitHub <code>${link.linearUserId.slice('github:'.length)}</code>` : html`<code>${link.linearUserId}</code>`}</td>
        <td>${facts.names.has(link.slackUserId) ? html`<bdi>${facts.names.get(link.slackUserId)}</bdi> ` : ''}<code>${link.slackUserId}</code></td>
        <td>${link.how === 'console' ? 'linked here' : 'same email'}</td>
        <td>${when(link.linkedAt)}</td>
        <td>
          ${action(
            '/console/keys/unlink',
            'Remove',
            viewer.csrf,
            link.linearUserId.startsWith('github:') ? { github: link.linearUserId.slice('github:'.length) } : { linear: link.linearUserId },
          )}
        </td>
      </tr>`,
  );
  const unlinked = [...seen].map(([id, name]) => html`<li><bdi>${name}</bdi> <code>${id}</code></li>`);
  return html`<h2 id="linear-people">Linear people</h2>
    <p>
      A Linear user is the same person as a Slack user when both accounts have the same email (Slack must have it confirmed); such links are found
      the first time they ask for a run and listed here. Link anyone else by hand: their Linear requests then run under that Slack user’s key.
    </p>
    <table data-testid="links">
      <thead>
        <tr>
          <th>Linear or GitHub user</th>
          <th>Slack user</th>
          <th>How</th>
          <th>Since</th>
          <th></th>
        </tr>
      </thead>
      <tbody>
        ${rows.length > 0 ? rows : html`<tr><td colspan="5" class="muted">No Linear or GitHub user is linked.</td></tr>`}
      </tbody>
    </table>
    ${unlinked.length > 0 ? html`<p>Linear people on recent runs who are not linked:</p><ul data-testid="unlinked">${unlinked}</ul>` : ''}
    <form method="post" action="/console/keys/link" autocomplete="off">
      <input type="hidden" name="csrf" value="${viewer.csrf}" />
      <label>Linear user ID <input name="linear" required maxlength="36" placeholder="0a1b2c3d-0000-4000-8000-000000000000" /></label>
      <label>Slack user ID <input name="slack" required maxlength="40" pattern="[UW][A-Z0-9]{2,}" placeholder="U0123ABCD" /></label>
      <button type="submit">Link</button>
    </form>
    <p>A GitHub login is the same person as a Slack user only when linked here (GitHub tells an App no email).</p>
    <form method="post" action="/console/keys/link" autocomplete="off">
      <input type="hidden" name="csrf" value="${viewer.csrf}" />
      <label>GitHub login <input name="github" required maxlength="39" placeholder="octocat" /></label>
      <label>Slack user ID <input name="slack" required maxlength="40" pattern="[UW][A-Z0-9]{2,}" placeholder="U0123ABCD" /></label>
      <button type="submit">Link</button>
    </form>`;
}
