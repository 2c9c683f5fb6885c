/**
 * The console shows who each run belongs to, and links Linear people to Slack people (issue 20): real
 * HTTP on the real service, Slack names from the fake Slack Web API (`users.info`), runs and keys in
 * the service's SQLite file (stored as the intake worker and the key page store them).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/main.js';
import { KeyBox } from '../../src/people/key-box.js';
import { PersonKeys } from '../../src/people/person-keys.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite-store.js';
import { startSlackBridge, type SlackBridge } from '../helpers/slack-bridge.js';
import { aRun, aTrigger } from '../store/helpers.js';

const TOKEN = 'console-admin-token-people-0123456789';
const BRIDGE_SECRET = 'bridge-secret-'.padEnd(48, 'p');
const ADA = 'U0ADA0001';
const GRACE = 'U0GRACE01';
const ADA_KEY = 'wk_personal_ada_0123456789abcdefHk42';
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
    const anchor = source === 'slack' ? `slack:C0DEV:1700000000.${runId.length}` : `linear:${runId}`;
    const trigger = aTrigger({ key, source, anchor });
    (trigger.payload as { requester: unknown }).requester = requester;
    await store.triggers.enqueue(trigger, [], Date.now());
    await store.trackedRuns.insert(
      aRun(runId, { anchor, source, triggerKey: key, title: `Run ${runId}`, ...(personalKeyOwner && { personalKeyOwner }) }),
      Date.now(),
    );
  };
  await seed('r_ada', 'Ev_ada', { platform: 'slack', id: ADA, name: `<@${ADA}>` }, ADA);
  await seed('r_grace', 'Ev_grace', { platform: 'slack', id: GRACE, name: `<@${GRACE}>` });
  await seed('r_linear', 'lin_1', { platform: 'linear', id: LINEAR_USER, name: 'Lin Ear' }, ADA, 'linear');
  await seed('r_linear2', 'lin_2', { platform: 'linear', id: OTHER_LINEAR_USER, name: 'Other Person' }, undefined, 'linear');
});
afterAll(async () => {
  await store.close();
  await bridge.stop();
});

const get = (path: string, cookie = '') => fetch(`${service.url}${path}`, { redirect: 'manual', headers: { cookie } });
const post = (path: string, form: Record<string, string>, cookie = '') =>
  fetch(`${service.url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
const cookiesOf = (response: Response) => response.headers.getSetCookie().map((line) => line.split(';')[0] ?? '');
const csrfIn = (page: string) => /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
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
  const form = await get('/console/sign-in');
  const answer = await post('/console/sign-in', { csrf: csrfIn(await form.text()), token: TOKEN, next: '/console/keys' }, cookiesOf(form).join('; '));
  session = { cookie: cookiesOf(answer).find((line) => line.startsWith('agent_bridge_console=')) ?? '', csrf: '' };
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
    for (const typed of [GRACE, GRACE.toLowerCase(), `@${GRACE}`, `<@${GRACE}>`]) expect(await runsFor(typed)).toEqual(['r_grace']);
  });

  it('still matches part of a stored name, and a name nobody has finds nothing', async () => {
    expect(await runsFor('lin ear')).toEqual(['r_linear']);
    expect(await runsFor('Nobody Atall')).toEqual([]);
  });
});

describe('linking a Linear user to a Slack user', () => {
  it('lists Linear people of recent runs who are not linked, and no link yet', async () => {
    const page = await read('/console/keys');
    expect(page).toContain('No Linear or GitHub user is linked.');
    expect(/data-testid="unlinked">([\s\S]*?)<\/ul>/.exec(page)?.[1]).toContain(`<bdi>Lin Ear</bdi> <code>${LINEAR_USER}</code>`);
  });

  it.each([
    ['a Linear id that is not a UUID', { linear: 'lin-ear', slack: ADA }, 'link-bad-linear'],
    ['an empty Linear id', { linear: '', slack: ADA }, 'link-bad-linear'],
    ['a Slack id that is not one', { linear: LINEAR_USER, slack: 'ada@example.com' }, 'link-bad-slack'],
    ['a Slack channel id', { linear: LINEAR_USER, slack: 'C0DEV' }, 'link-bad-slack'],
    ['a GitHub login with a slash', { github: 'acme/web', slack: ADA }, 'link-bad-linear'],
    ['a GitHub login too long', { github: 'a'.repeat(40), slack: ADA }, 'link-bad-linear'],
  ])('refuses %s with a clear message and stores nothing', async (_what, form, flash) => {
    expect(await submit('/console/keys/link', form)).toBe(flash);
    expect(await service.store.personLinks.list()).toEqual([]);
    expect(await read(`/console/keys?flash=${flash}`)).toContain('Not linked: that is not a');
  });

  it('refuses a form without the CSRF token (403), storing nothing', async () => {
    const answer = await post('/console/keys/link', { linear: LINEAR_USER, slack: ADA }, session.cookie);
    expect(answer.status).toBe(403);
    expect(await service.store.personLinks.list()).toEqual([]);
  });

  it('links, lists the link with the Slack name, and no longer offers that Linear user', async () => {
    expect(await submit('/console/keys/link', { linear: LINEAR_USER.toUpperCase(), slack: GRACE })).toBe('link-saved');
    expect(await service.store.personLinks.get(LINEAR_USER)).toMatchObject({ slackUserId: GRACE, how: 'console' });
    const page = await read('/console/keys');
    const links = /data-testid="links">([\s\S]*?)<\/table>/.exec(page)?.[1] ?? '';
    expect(links).toContain(`<code>${LINEAR_USER}</code>`);
    expect(links).toContain(`<bdi>Grace Hopper</bdi> <code>${GRACE}</code>`);
    expect(links).toContain('linked here');
    expect(/data-testid="unlinked">([\s\S]*?)<\/ul>/.exec(page)?.[1]).not.toContain(LINEAR_USER);
  });

  it('removes a link; removing again finds none', async () => {
    expect(await submit('/console/keys/unlink', { linear: LINEAR_USER })).toBe('link-removed');
    expect(await service.store.personLinks.get(LINEAR_USER)).toBeUndefined();
    expect(await submit('/console/keys/unlink', { linear: LINEAR_USER })).toBe('link-absent');
  });

  it('links a GitHub login (issue 29), in any case and with an @, lists it, and removes it', async () => {
    expect(await submit('/console/keys/link', { github: '@OctoCat', slack: GRACE })).toBe('link-saved');
    expect(await service.store.personLinks.get('github:octocat')).toMatchObject({ slackUserId: GRACE, how: 'console' });
    const links = /data-testid="links">([\s\S]*?)<\/table>/.exec(await read('/console/keys'))?.[1] ?? '';
    expect(links).toContain('GitHub <code>octocat</code>');
    expect(await submit('/console/keys/unlink', { github: 'octocat' })).toBe('link-removed');
    expect(await service.store.personLinks.list()).toEqual([]);
  });

  it('never rendered a key', () => {
    expect(pages.join('\n')).not.toContain(ADA_KEY.slice(0, -4));
  });
});
