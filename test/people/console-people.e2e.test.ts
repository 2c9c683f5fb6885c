/**
 * The console shows who each run belongs to, and links Linear people to Slack people: real
 * HTTP on the real service, Slack names from the fake Slack Web API (`users.info`), runs and keys in
 * the service's SQLite file (stored as the intake worker and the key page store them).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/main.js';
import { KeyBox } from '../../src/people/key-box.js';
import { PersonKeys } from '../../src/people/person-keys.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite-store.js';
import { consoleHttp, csrfIn, signInWithToken } from '../helpers/console-http.js';
import { startSlackBridge, type SlackBridge } from '../helpers/slack-bridge.js';
import { aRun, aTrigger } from '../store/helpers.js';

const TOKEN = 'console-admin-token-people-0123456789';
const BRIDGE_SECRET = 'bridge-secret-'.padEnd(48, 'p');
const ADA = 'U0ADA0001';
const GRACE = 'U0GRACE01';
const ADA_KEY = 'wk_personal_ada_0123456789abcdefHk42';
const JIRA_ACCOUNT = '557058:f58131cb-b67d-43c7-b30d-6b58d40bd077';
const LINEAR_USER = '0a1b2c3d-0000-4000-8000-0000000user7';
const OTHER_LINEAR_USER = '0a1b2c3d-0000-4000-8000-0000000user8';

let bridge: SlackBridge;
let service: RunningService;
let store: SqliteStore;

beforeAll(async () => {
  bridge = await startSlackBridge({
    users: { [ADA]: { real_name: 'Ada Lovelace', display_name: 'ada' }, [GRACE]: { real_name: 'Grace Hopper' } },
    env: { CONSOLE_ADMIN_TOKEN: TOKEN, AGENT_BRIDGE_SECRET: BRIDGE_SECRET },
    yaml: 'people:\n  attribution: personal_if_connected\n',
  });
  ({ service } = bridge);
  // A second connection on the service's file: what the intake worker and the key page would have stored.
  store = openSqliteStore({ path: join(bridge.cwd, 'bridge.db') });
  await new PersonKeys(store.personKeys, new KeyBox(BRIDGE_SECRET)).connect(ADA, ADA_KEY, Date.now());
  const seed = async (runId: string, key: string, requester: Record<string, string>, personalKeyOwner?: string, source = 'slack') => {
    const anchor = source === 'slack' ? `slack:C0DEV:1700000000.${runId.length}` : source === 'jira' ? 'jira:ENG-7' : `linear:${runId}`;
    const trigger = aTrigger({ key, source, anchor });
    (trigger.payload as { requester: unknown }).requester = requester;
    // Due tomorrow: the running service's intake worker must not work these (it would start a real run
    // for the same person, which then shows up in the person filter, as it did when the worker was quick).
    await store.triggers.enqueue({ trigger, now: Date.now(), dueAt: Date.now() + 86_400_000 });
    await store.trackedRuns.insert(
      aRun(runId, { anchor, source, triggerKey: key, title: `Run ${runId}`, ...(personalKeyOwner && { personalKeyOwner }) }),
      Date.now(),
    );
  };
  await seed('r_ada', 'Ev_ada', { platform: 'slack', id: ADA, name: `<@${ADA}>` }, ADA);
  await seed('r_grace', 'Ev_grace', { platform: 'slack', id: GRACE, name: `<@${GRACE}>` });
  await seed('r_linear', 'lin_1', { platform: 'linear', id: LINEAR_USER, name: 'Lin Ear' }, ADA, 'linear');
  await seed('r_linear2', 'lin_2', { platform: 'linear', id: OTHER_LINEAR_USER, name: 'Other Person' }, undefined, 'linear');
  await seed('r_jira', 'jira_1', { platform: 'jira', id: JIRA_ACCOUNT, name: 'Jira Person' }, undefined, 'jira');
});
afterAll(async () => {
  await store.close();
  await bridge.stop();
});

const http = consoleHttp(() => service.url);
const { get, post } = http;
let session: { cookie: string; csrf: string };
const pages: string[] = [];

async function read(path: string): Promise<string> {
  const response = await get(path, session.cookie);
  expect(response.status).toBe(200);
  const text = await response.text();
  pages.push(text);
  return text;
}

/** Posts a link form; answers the flash code it redirects to. */
async function submit(path: string, form: Record<string, string>): Promise<string> {
  const answer = await post(path, { csrf: session.csrf, ...form }, session.cookie);
  expect(answer.status).toBe(303);
  return new URL(answer.headers.get('location') ?? '', service.url).searchParams.get('flash') ?? '';
}

/** The table row of one run on the runs page. */
const rowOf = (page: string, runId: string) => new RegExp(`<tr data-run="${runId}">([\\s\\S]*?)</tr>`).exec(page)?.[1] ?? '';

beforeAll(async () => {
  session = { cookie: await signInWithToken(http, TOKEN, '/console/keys'), csrf: '' };
  session.csrf = csrfIn(await read('/console/keys'));
});

describe('who each run belongs to', () => {
  it('lists the asker by Slack display name and the key each run runs under', async () => {
    const page = await read('/console/runs');
    expect(page).toContain('<th>Key</th>');
    expect(rowOf(page, 'r_ada')).toContain(`<bdi>ada</bdi> <span class="muted">(${ADA})</span>`);
    expect(rowOf(page, 'r_ada')).toContain('own key ····Hk42');
    expect(rowOf(page, 'r_grace')).toContain(`<bdi>Grace Hopper</bdi>`);
    expect(rowOf(page, 'r_grace')).toContain('service key');
    // A Linear request under the key of the Slack user its author is linked to says whose.
    expect(rowOf(page, 'r_linear')).toContain('<bdi>Lin Ear</bdi>');
    expect(rowOf(page, 'r_linear')).toMatch(/own key ····Hk42 <span class="muted">of <bdi>ada<\/bdi>/);
    expect(page).not.toContain('&lt;@U0');
    expect(bridge.slack.callsTo('users.info').length).toBeGreaterThan(0);
  });

  it('says the same on the run page', async () => {
    const page = await read('/console/run?id=r_ada');
    expect(/data-testid="run-key">([\s\S]*?)<\/dd>/.exec(page)?.[1]).toContain('own key ····Hk42');
    expect(page).toContain(`<bdi>ada</bdi> <span class="muted">(${ADA})</span>`);
    expect(/data-testid="run-key">([\s\S]*?)<\/dd>/.exec(await read('/console/run?id=r_grace'))?.[1]).toContain('service key');
  });
});

describe('the runs page’s Person filter', () => {
  const runsFor = async (person: string) =>
    [...(await read(`/console/runs?person=${encodeURIComponent(person)}`)).matchAll(/<tr data-run="([^"]+)">/g)].map((match) => match[1]);

  it('takes a Slack display name the console has shown, in any case, though the run stores only <@U…>', async () => {
    await read('/console/runs');
    expect(await runsFor('hopper')).toEqual(['r_grace']);
    expect(await runsFor('GRACE H')).toEqual(['r_grace']);
    expect(await read('/console/runs?person=hopper')).toContain('value="hopper"');
  });

  it('takes a Slack user ID in any case, bare or as a mention', async () => {
    for (const typed of [GRACE, GRACE.toLowerCase(), `@${GRACE}`, `<@${GRACE}>`, `slack:${GRACE}`, `SLACK:${GRACE.toLowerCase()}`])
      expect(await runsFor(typed)).toEqual(['r_grace']);
  });

  it('still matches part of a stored name, and a name nobody has finds nothing', async () => {
    expect(await runsFor('lin ear')).toEqual(['r_linear']);
    expect(await runsFor('Nobody Atall')).toEqual([]);
  });
});

describe('linking a Linear user to a Slack user (people of other surfaces)', () => {
  it('lists Linear people of recent runs who are not linked, and no link yet', async () => {
    const page = await read('/console/keys');
    expect(page).toContain('Nobody is linked.');
    expect(/data-testid="unlinked">([\s\S]*?)<\/ul>/.exec(page)?.[1]).toContain(`Linear: <bdi>Lin Ear</bdi> <code>${LINEAR_USER}</code>`);
  });

  it.each([
    ['a Linear id that is not a UUID', { surface: 'linear', user: 'lin-ear', person: ADA }, 'link-bad-user'],
    ['an empty Linear id', { surface: 'linear', user: '', person: ADA }, 'link-bad-user'],
    ['a GitHub login with a slash', { surface: 'github', user: 'acme/web', person: ADA }, 'link-bad-user'],
    ['a GitHub login too long', { surface: 'github', user: 'a'.repeat(40), person: ADA }, 'link-bad-user'],
    ['a GitLab username with a space', { surface: 'gitlab', user: 'grace hopper', person: ADA }, 'link-bad-user'],
    ['a surface that is not registered', { surface: 'myspace', user: LINEAR_USER, person: ADA }, 'link-bad-user'],
    ['no surface', { user: LINEAR_USER, person: ADA }, 'link-bad-user'],
    ['a person id that is not one', { surface: 'linear', user: LINEAR_USER, person: 'ada@example.com' }, 'link-bad-person'],
    ['a Slack channel id', { surface: 'linear', user: LINEAR_USER, person: 'C0DEV' }, 'link-bad-person'],
    ['a person of a surface that is not registered', { surface: 'linear', user: LINEAR_USER, person: `myspace:${ADA}` }, 'link-bad-person'],
  ])('refuses %s with a clear message and stores nothing', async (_what, form, flash) => {
    expect(await submit('/console/keys/link', form)).toBe(flash);
    expect(await service.store.personLinks.list()).toEqual([]);
    expect(await read(`/console/keys?flash=${flash}`)).toContain('Not linked: that is not a');
  });

  it.each([[`slack:${GRACE}`], [`SLACK:${GRACE}`]])('links to the person %j, stored as the canonical person id, and removes it', async (typed) => {
    expect(await submit('/console/keys/link', { surface: 'linear', user: OTHER_LINEAR_USER, person: typed })).toBe('link-saved');
    expect(await service.store.personLinks.get('linear', OTHER_LINEAR_USER)).toMatchObject({ personId: GRACE, how: 'console' });
    expect(await submit('/console/keys/unlink', { surface: 'linear', user: OTHER_LINEAR_USER })).toBe('link-removed');
  });

  it('says what a person id looks like on the form and when one is refused', async () => {
    expect(await read('/console/keys?flash=link-bad-person')).toContain(
      'Not linked: that is not a person id (a Slack user ID such as U0123ABCD (profile → ⋮ → Copy member ID), or a Teams user’s Entra object ID written teams:&lt;id&gt;, such as teams:6e1c2f5a-0b1d-4c8e-9f3a-2d7b8c9e0f11 (Microsoft Entra admin center → Users → the person → Object ID)).',
    );
    expect(await read('/console/keys')).toContain('Person id <input name="person"');
  });

  it('refuses a form without the CSRF token (403), storing nothing', async () => {
    const answer = await post('/console/keys/link', { surface: 'linear', user: LINEAR_USER, person: ADA }, session.cookie);
    expect(answer.status).toBe(403);
    expect(await service.store.personLinks.list()).toEqual([]);
  });

  it('links, lists the link with the Slack name, and no longer offers that Linear user', async () => {
    expect(await submit('/console/keys/link', { surface: 'linear', user: LINEAR_USER.toUpperCase(), person: GRACE })).toBe('link-saved');
    expect(await service.store.personLinks.get('linear', LINEAR_USER)).toMatchObject({ personId: GRACE, how: 'console' });
    const page = await read('/console/keys');
    const links = /data-testid="links">([\s\S]*?)<\/table>/.exec(page)?.[1] ?? '';
    expect(links).toContain(`<code>${LINEAR_USER}</code>`);
    expect(links).toContain(`<bdi>Grace Hopper</bdi> <code>${GRACE}</code>`);
    expect(links).toContain('linked here');
    expect(/data-testid="unlinked">([\s\S]*?)<\/ul>/.exec(page)?.[1]).not.toContain(LINEAR_USER);
  });

  it('links a Jira account of a recent run (issue 30, point 4), lists it, and removes it', async () => {
    const before = await read('/console/keys');
    expect(/data-testid="unlinked">([\s\S]*?)<\/ul>/.exec(before)?.[1]).toContain(`Jira: <bdi>Jira Person</bdi> <code>${JIRA_ACCOUNT}</code>`);
    expect(await submit('/console/keys/link', { surface: 'jira', user: 'not an id <script>', person: ADA })).toBe('link-bad-user');
    expect(await service.store.personLinks.get('jira', JIRA_ACCOUNT)).toBeUndefined();
    expect(await submit('/console/keys/link', { surface: 'jira', user: JIRA_ACCOUNT, person: ADA })).toBe('link-saved');
    expect(await service.store.personLinks.get('jira', JIRA_ACCOUNT)).toMatchObject({ personId: ADA, how: 'console' });
    const page = await read('/console/keys');
    const links = /data-testid="links">([\s\S]*?)<\/table>/.exec(page)?.[1] ?? '';
    expect(links).toContain('<td>Jira</td>');
    expect(links).toContain(`<code>${JIRA_ACCOUNT}</code>`);
    expect(/data-testid="unlinked">([\s\S]*?)<\/ul>/.exec(page)?.[1] ?? '').not.toContain(JIRA_ACCOUNT);
    // The same id is no Linear user: removing it there finds nothing.
    expect(await submit('/console/keys/unlink', { surface: 'linear', user: JIRA_ACCOUNT })).toBe('link-absent');
    expect(await submit('/console/keys/unlink', { surface: 'jira', user: JIRA_ACCOUNT })).toBe('link-removed');
    expect(await service.store.personLinks.get('jira', JIRA_ACCOUNT)).toBeUndefined();
  });

  it('links a GitHub login (issue 29), in any case and with an @, lists it, and removes it', async () => {
    expect(await submit('/console/keys/link', { surface: 'github', user: '@OctoCat', person: GRACE })).toBe('link-saved');
    expect(await service.store.personLinks.get('github', 'octocat')).toMatchObject({ personId: GRACE, how: 'console' });
    const links = /data-testid="links">([\s\S]*?)<\/table>/.exec(await read('/console/keys'))?.[1] ?? '';
    expect(links).toContain('<td>GitHub</td>');
    expect(links).toContain('<code>octocat</code>');
    expect(await submit('/console/keys/unlink', { surface: 'github', user: 'OctoCat' })).toBe('link-removed');
    expect(await service.store.personLinks.get('github', 'octocat')).toBeUndefined();
  });

  it('links a GitLab username, in any case and with an @, lists it, and removes it', async () => {
    expect(await submit('/console/keys/link', { surface: 'gitlab', user: '@Grace.Hopper', person: GRACE })).toBe('link-saved');
    expect(await service.store.personLinks.get('gitlab', 'grace.hopper')).toMatchObject({ personId: GRACE, how: 'console' });
    const links = /data-testid="links">([\s\S]*?)<\/table>/.exec(await read('/console/keys'))?.[1] ?? '';
    expect(links).toContain('<td>GitLab</td>');
    expect(links).toContain('<code>grace.hopper</code>');
    expect(await submit('/console/keys/unlink', { surface: 'gitlab', user: 'grace.hopper' })).toBe('link-removed');
    expect(await service.store.personLinks.get('gitlab', 'grace.hopper')).toBeUndefined();
  });

  it('removes a link; removing again finds none', async () => {
    expect(await submit('/console/keys/unlink', { surface: 'linear', user: LINEAR_USER })).toBe('link-removed');
    expect(await service.store.personLinks.get('linear', LINEAR_USER)).toBeUndefined();
    expect(await submit('/console/keys/unlink', { surface: 'linear', user: LINEAR_USER })).toBe('link-absent');
  });

  it('never rendered a key', () => {
    expect(pages.join('\n')).not.toContain(ADA_KEY.slice(0, -4));
  });
});
