/**
 * Linking a Linear user or a Jira account to a Slack user on the console (issue 20, point 4; Jira:
 * issue 30, point 4): the keys page lists the links (made by an admin, or found by the same email) and
 * the Linear and Jira people seen on recent runs who are not linked yet; an admin links one by Linear
 * user id or Jira account id and Slack user id, or removes a link. A link makes that person's requests
 * run under the Slack user's key. Jira accounts are stored as `jira:<accountId>` (`jiraLinkId`).
 */
import { SLACK_USER_ID } from '../config/validators.js';
import { jiraLinkId } from '../people/identity.js';
import type { PersonLinkRecord } from '../core/ports/store.js';
import type { ConsoleDeps, Viewer } from './deps.js';
import { html, type SafeHtml } from './html.js';
import { action, when } from './layout.js';
import { peopleFacts } from './people-cells.js';

/** Linear user ids are UUIDs (checked by shape: letters and digits in 8-4-4-4-12 groups). */
export const LINEAR_USER_ID = /^[0-9a-z]{8}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{12}$/i;

/** Jira account ids: `5b10ac8d82e05b22cc7d4ef5`, or `557058:f58131cb-…` (a prefix, a colon, a UUID). */
export const JIRA_ACCOUNT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}(?::[A-Za-z0-9-]{1,64})?$/;

/** The stored id of a link named in a form: a Linear user id, or a Jira account's `jira:<accountId>`. */
function linkIdOf(value: string): string | undefined {
  const id = value.trim();
  if (id.startsWith('jira:')) return JIRA_ACCOUNT_ID.test(id.slice('jira:'.length)) ? id : undefined;
  return LINEAR_USER_ID.test(id) ? id.toLowerCase() : undefined;
}

/** What a link action did, shown once on the keys page (codes in the URL, words here). */
export const LINK_FLASH: Record<string, string> = {
  'link-saved': 'Linked: requests by that Linear user now run under the Slack user’s key.',
  'link-bad-linear': 'Not linked: that is not a Linear user ID (a UUID such as 0a1b2c3d-…; the list of Linear people below has them).',
  'link-bad-slack': 'Not linked: that is not a Slack user ID (such as U0123ABCD).',
  'link-bad-jira': 'Not linked: that is not a Jira account ID (such as 5b10ac8d82e05b22cc7d4ef5 or 557058:f58131cb-…; the list of Jira people below has them).',
  'link-removed': 'Link removed: requests by that Linear user use the service’s key unless their email matches a Slack user’s.',
  'link-absent': 'Nothing to remove: that Linear user was not linked.',
};

/** Stores an admin's link when both ids are well-formed (nothing stored otherwise); answers the flash code. */
export async function linkPeople(deps: Pick<ConsoleDeps, 'store' | 'clock' | 'logger'>, form: URLSearchParams): Promise<string> {
  const jiraAccount = (form.get('jira') ?? '').trim();
  const linearUserId = jiraAccount !== '' ? jiraLinkId(jiraAccount) : (form.get('linear') ?? '').trim().toLowerCase();
  const slackUserId = (form.get('slack') ?? '').trim();
  if (jiraAccount !== '' && !JIRA_ACCOUNT_ID.test(jiraAccount)) return 'link-bad-jira';
  if (jiraAccount === '' && !LINEAR_USER_ID.test(linearUserId)) return 'link-bad-linear';
  if (!SLACK_USER_ID.test(slackUserId) || slackUserId.length > 40) return 'link-bad-slack';
  await deps.store.personLinks.put({ linearUserId, slackUserId, how: 'console', linkedAt: deps.clock.now() });
  deps.logger.info({ linearUserId, slackUserId }, 'Linear user or Jira account linked to a Slack user in the console');
  return 'link-saved';
}

/** Removes a link; answers the flash code. */
export async function unlinkPeople(deps: Pick<ConsoleDeps, 'store' | 'logger'>, form: URLSearchParams): Promise<string> {
  const linearUserId = linkIdOf(form.get('linear') ?? '');
  const removed = linearUserId !== undefined && (await deps.store.personLinks.remove(linearUserId));
  if (removed) deps.logger.info({ linearUserId }, 'link of a Linear user or Jira account removed in the console');
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
  const seenJira = new Map<string, string>();
  for (const run of await deps.store.operator.listRuns({ source: 'jira', limit: RECENT_LINEAR_RUNS })) {
    const { id, name } = run.requester;
    if (id && JIRA_ACCOUNT_ID.test(id) && !linked.has(jiraLinkId(id)) && !seenJira.has(id)) seenJira.set(id, name ?? id);
  }
  const facts = await peopleFacts(deps, [...new Set(links.map((link) => link.slackUserId))]);
  const rows = links.map(
    (link) =>
      html`<tr>
        <td>${link.linearUserId.startsWith('jira:') ? html`Jira <code>${link.linearUserId.slice('jira:'.length)}</code>` : html`Linear <code>${link.linearUserId}</code>`}</td>
        <td>${facts.names.has(link.slackUserId) ? html`<bdi>${facts.names.get(link.slackUserId)}</bdi> ` : ''}<code>${link.slackUserId}</code></td>
        <td>${link.how === 'console' ? 'linked here' : 'same email'}</td>
        <td>${when(link.linkedAt)}</td>
        <td>${action('/console/keys/unlink', 'Remove', viewer.csrf, { linear: link.linearUserId })}</td>
      </tr>`,
  );
  const unlinked = [...seen].map(([id, name]) => html`<li>Linear: <bdi>${name}</bdi> <code>${id}</code></li>`);
  const unlinkedJira = [...seenJira].map(([id, name]) => html`<li>Jira: <bdi>${name}</bdi> <code>${id}</code></li>`);
  return html`<h2 id="linear-people">Linear and Jira people</h2>
    <p>
      A Linear user or Jira account is the same person as a Slack user when both have the same email (Slack must have it confirmed, and Jira
      shows it only where the person lets it); such links are found the first time they ask for a run and listed here. Link anyone else by
      hand: their requests then run under that Slack user’s key.
    </p>
    <table data-testid="links">
      <thead>
        <tr>
          <th>Linear user or Jira account</th>
          <th>Slack user</th>
          <th>How</th>
          <th>Since</th>
          <th></th>
        </tr>
      </thead>
      <tbody>
        ${rows.length > 0 ? rows : html`<tr><td colspan="5" class="muted">No Linear user or Jira account is linked.</td></tr>`}
      </tbody>
    </table>
    ${
      unlinked.length + unlinkedJira.length > 0
        ? html`<p>People on recent Linear and Jira runs who are not linked:</p><ul data-testid="unlinked">${unlinked}${unlinkedJira}</ul>`
        : ''
    }
    <form method="post" action="/console/keys/link" autocomplete="off">
      <input type="hidden" name="csrf" value="${viewer.csrf}" />
      <label>Linear user ID <input name="linear" required maxlength="36" placeholder="0a1b2c3d-0000-4000-8000-000000000000" /></label>
      <label>Slack user ID <input name="slack" required maxlength="40" pattern="[UW][A-Z0-9]{2,}" placeholder="U0123ABCD" /></label>
      <button type="submit">Link</button>
    </form>
    <form method="post" action="/console/keys/link" autocomplete="off">
      <input type="hidden" name="csrf" value="${viewer.csrf}" />
      <label>Jira account ID <input name="jira" required maxlength="130" placeholder="557058:f58131cb-b67d-43c7-b30d-6b58d40bd077" /></label>
      <label>Slack user ID <input name="slack" required maxlength="40" pattern="[UW][A-Z0-9]{2,}" placeholder="U0123ABCD" /></label>
      <button type="submit">Link</button>
    </form>`;
}
