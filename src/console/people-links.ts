/**
 * Linking users of other surfaces to people on the console: the keys page lists the links (made by an
 * admin, or found by the same email) and the users seen on recent runs who are not linked yet; an
 * admin links one — its surface, its user id, a person id of any chat surface — or removes a link. A
 * link makes that user's requests run under that person's key. Which surfaces can be linked, and how
 * their ids look, each surface says (`Surface.users`).
 */
import type { PersonLinkRecord } from '../core/ports/store.js';
import { PERSON_IDS } from '../surface-list.js';
import type { ConsoleDeps, LinkableSurface, Viewer } from './deps.js';
import { html, type SafeHtml } from './html.js';
import { action, when } from './layout.js';
import { peopleFacts } from './people-cells.js';

/** What a link action did, shown once on the keys page (codes in the URL, words here). */
export const LINK_FLASH: Record<string, string> = {
  'link-saved': 'Linked: requests by that user now run under that person’s key.',
  'link-bad-user': 'Not linked: that is not a user ID of the chosen surface (the list of people on recent runs below has them; the form shows an example).',
  'link-bad-person': `Not linked: that is not a person id (${PERSON_IDS.expected()}).`,
  'link-removed': 'Link removed: requests by that user use the service’s key unless their email matches a person’s on a chat surface.',
  'link-absent': 'Nothing to remove: that user was not linked.',
};

/** How many recent runs of each surface are read for people not linked yet. */
const RECENT_RUNS = 200;

/** The surface the form names and the user id in it as stored, or undefined when either is not well-formed. */
function userOf(linkable: readonly LinkableSurface[], form: URLSearchParams): { surface: string; userId: string } | undefined {
  const surface = linkable.find((one) => one.name === form.get('surface'));
  if (!surface) return undefined;
  const raw = (form.get('user') ?? '').trim();
  const userId = surface.users.normalise?.(raw) ?? raw;
  return userId.length <= 100 && surface.users.idPattern.test(userId) ? { surface: surface.name, userId } : undefined;
}

/** Stores an admin's link when both ids are well-formed (nothing stored otherwise); answers the flash code. */
export async function linkPeople(deps: Pick<ConsoleDeps, 'store' | 'clock' | 'logger' | 'linkable'>, form: URLSearchParams): Promise<string> {
  const user = userOf(deps.linkable, form);
  const person = PERSON_IDS.parse((form.get('person') ?? '').trim());
  if (!user) return 'link-bad-user';
  if (!person) return 'link-bad-person';
  const { personId } = person;
  await deps.store.personLinks.put({ ...user, personId, how: 'console', linkedAt: deps.clock.now() });
  deps.logger.info({ ...user, personId }, 'user of another surface linked to a person in the console');
  return 'link-saved';
}

/** Removes a link; answers the flash code. */
export async function unlinkPeople(deps: Pick<ConsoleDeps, 'store' | 'logger' | 'linkable'>, form: URLSearchParams): Promise<string> {
  const user = userOf(deps.linkable, form);
  const removed = user !== undefined && (await deps.store.personLinks.remove(user.surface, user.userId));
  if (removed) deps.logger.info(user, 'link of a user of another surface removed in the console');
  return removed ? 'link-removed' : 'link-absent';
}

/** Users of the linkable surfaces on recent runs who are not linked: [surface, id, name]. */
async function unlinkedUsers(deps: Pick<ConsoleDeps, 'store' | 'linkable'>, links: readonly PersonLinkRecord[]): Promise<[LinkableSurface, string, string][]> {
  const linked = new Set(links.map((link) => `${link.surface}:${link.userId}`));
  const seen = new Map<string, [LinkableSurface, string, string]>();
  for (const surface of deps.linkable) {
    for (const run of await deps.store.operator.listRuns({ source: surface.name, limit: RECENT_RUNS })) {
      const { id, name } = run.requester;
      const key = `${surface.name}:${id}`;
      if (id && surface.users.idPattern.test(id) && !linked.has(key) && !seen.has(key)) seen.set(key, [surface, id, name ?? id]);
    }
  }
  return [...seen.values()];
}

/** The keys page's section on people of other surfaces: the links, the people seen who are not linked, and the form. */
export async function linksSection(deps: Pick<ConsoleDeps, 'store' | 'names' | 'keys' | 'linkable'>, viewer: Viewer): Promise<SafeHtml> {
  if (deps.linkable.length === 0) return html``;
  const titles = new Map(deps.linkable.map((surface) => [surface.name, surface.title]));
  const links: PersonLinkRecord[] = await deps.store.personLinks.list();
  const facts = await peopleFacts(deps, [...new Set(links.map((link) => link.personId))]);
  const rows = links.map(
    (link) =>
      html`<tr>
        <td>${titles.get(link.surface) ?? link.surface}</td>
        <td><code>${link.userId}</code></td>
        <td>${facts.names.has(link.personId) ? html`<bdi>${facts.names.get(link.personId)}</bdi> ` : ''}<code>${link.personId}</code></td>
        <td>${link.how === 'console' ? 'linked here' : 'same email'}</td>
        <td>${when(link.linkedAt)}</td>
        <td>${action('/console/keys/unlink', 'Remove', viewer.csrf, { surface: link.surface, user: link.userId })}</td>
      </tr>`,
  );
  const unlinked = (await unlinkedUsers(deps, links)).map(([surface, id, name]) => html`<li>${surface.title}: <bdi>${name}</bdi> <code>${id}</code></li>`);
  const options = deps.linkable.map((surface) => html`<option value="${surface.name}">${surface.title}</option>`);
  const examples = deps.linkable.map((surface) => `${surface.title}: ${surface.users.example}`).join('; ');
  return html`<h2 id="other-people">People of other surfaces</h2>
    <p>
      A user of another surface is the same person as a user of a chat surface when both accounts have the same email (the chat must have it
      confirmed); such links are found the first time they ask for a run and listed here. Link anyone else by hand to a person id: their requests
      then run under that person’s key.
    </p>
    <table data-testid="links">
      <thead>
        <tr>
          <th>Surface</th>
          <th>User</th>
          <th>Person</th>
          <th>How</th>
          <th>Since</th>
          <th></th>
        </tr>
      </thead>
      <tbody>
        ${rows.length > 0 ? rows : html`<tr><td colspan="6" class="muted">Nobody is linked.</td></tr>`}
      </tbody>
    </table>
    ${unlinked.length > 0 ? html`<p>People on recent runs who are not linked:</p><ul data-testid="unlinked">${unlinked}</ul>` : ''}
    <form method="post" action="/console/keys/link" autocomplete="off">
      <input type="hidden" name="csrf" value="${viewer.csrf}" />
      <label>Surface <select name="surface">${options}</select></label>
      <label>User ID <input name="user" required maxlength="100" placeholder="${examples}" /></label>
      <label title="${PERSON_IDS.expected()}">Person id <input name="person" required maxlength="200" placeholder="${PERSON_IDS.example()}" /></label>
      <button type="submit">Link</button>
    </form>`;
}
