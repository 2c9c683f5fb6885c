/**
 * Removing a key on the console republishes the person's Home tab at once, as `/agent disconnect`
 * does: the person's own key page (signed in with Slack against the fake OpenID provider)
 * and an admin's Keys page (the admin token), over real HTTP on the real service, with real Bolt
 * receiving signed `app_home_opened` events and the fake Slack Web API recording `views.publish`.
 * Someone who never opened their Home tab gets none.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/main.js';
import { KeyBox } from '../../src/people/key-box.js';
import { PersonKeys } from '../../src/people/person-keys.js';
import { homeDestination } from '../../src/slack/home-view.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite-store.js';
import { startFakeOidcProvider, type FakeOidcProvider } from '../fakes/oidc-provider.js';
import { type FakeSlackApi, type SlackCall } from '../fakes/slack-api.js';
import { postSlackEvent } from '../fakes/slack-signing.js';
import { eventCallback } from '../fixtures/slack/events.js';
import { SLACK_IDS, nextTs } from '../fixtures/slack/ids.js';
import { consoleHttp, cookiesOf, csrfIn, sessionCookieOf, signInWithToken as signInWithAdminToken } from '../helpers/console-http.js';
import { SLACK_SECRET, startSlackBridge, type SlackBridge } from '../helpers/slack-bridge.js';

const TEAM = 'T0HOMETEAM';
const BRIDGE_SECRET = 'bridge-secret-'.padEnd(48, 'c');
const TOKEN = 'console-admin-token-home-republish-0123456';
const CLIENT_ID = '1234567890.5566778899';
const CLIENT_SECRET = 'slack-client-secret-home-0123456789ab';
const ADA = SLACK_IDS.user;
const GRACE = SLACK_IDS.otherUser;
const BOB = 'U0BOBNEVER1';
const KEYS: Record<string, string> = {
  [ADA]: 'wk_personal_ada_0123456789abcdefAd41',
  [GRACE]: 'wk_personal_grace_0123456789abcdeGr42',
  [BOB]: 'wk_personal_bob_0123456789abcdefBo43',
};

let bridge: SlackBridge;
let slack: FakeSlackApi, provider: FakeOidcProvider, service: RunningService, events: string;
let store: SqliteStore;

beforeAll(async () => {
  provider = await startFakeOidcProvider({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
  bridge = await startSlackBridge({
    fake: { teamId: TEAM },
    signIn: { issuer: provider.issuer, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET },
    env: { CONSOLE_ADMIN_TOKEN: TOKEN, AGENT_BRIDGE_SECRET: BRIDGE_SECRET },
    yaml: 'people:\n  attribution: personal_if_connected\n',
  });
  ({ slack, service, events } = bridge);
  // A second connection on the service's file: the keys are connected as the console would store them.
  store = openSqliteStore({ path: join(bridge.cwd, 'bridge.db') });
  const people = new PersonKeys(store.personKeys, new KeyBox(BRIDGE_SECRET));
  for (const [person, key] of Object.entries(KEYS)) await people.connect(person, key, Date.parse('2026-11-20T09:30:00Z'));
});
afterAll(async () => {
  await store?.close();
  await bridge?.stop();
  await provider?.close();
});

const http = consoleHttp(() => service.url);
const { get, post } = http;
const sessionOf = (response: Response) => sessionCookieOf(response) ?? '';

const publishesFor = (user: string) => slack.callsTo('views.publish').filter((call) => call.args['user_id'] === user);
const keyLine = (call: SlackCall | undefined) =>
  (call?.args['view'] as { blocks: Array<{ block_id?: string; text?: { text: string } }> } | undefined)?.blocks.find((block) => block.block_id === 'home_key')
    ?.text?.text;

async function openHome(user: string): Promise<SlackCall> {
  const before = publishesFor(user).length;
  const opened = eventCallback({ type: 'app_home_opened', user, channel: SLACK_IDS.dm, tab: 'home', event_ts: nextTs() });
  expect((await postSlackEvent(events, SLACK_SECRET, opened)).status).toBe(200);
  return bridge.until(() => publishesFor(user)[before], `the Home tab of ${user}`);
}

/** Signed in with Slack as `user` (of our workspace): the session cookie and a CSRF token from `page`. */
async function signInWithSlack(user: string, page: string): Promise<{ cookie: string; csrf: string }> {
  provider.signInAs({ userId: user, teamId: TEAM, name: 'Ada' });
  const start = await get(`/console/auth/slack?next=${encodeURIComponent(page)}`);
  const authorize = await get(start.headers.get('location') ?? '');
  const done = await get(authorize.headers.get('location') ?? '', cookiesOf(start).join('; '));
  expect(done.status).toBe(303);
  const cookie = sessionOf(done);
  return { cookie, csrf: csrfIn(await (await get(page, cookie)).text()) };
}

async function signInWithToken(): Promise<{ cookie: string; csrf: string }> {
  const cookie = await signInWithAdminToken(http, TOKEN, '/console/keys');
  return { cookie, csrf: csrfIn(await (await get('/console/keys', cookie)).text()) };
}

describe('the Home tab after a key is removed on the console', () => {
  it('is republished at once when the person disconnects their own key', async () => {
    expect(keyLine(await openHome(ADA))).toContain('connected ····Ad41');
    const before = publishesFor(ADA).length;
    const { cookie, csrf } = await signInWithSlack(ADA, '/console/my-key');
    const answer = await post('/console/my-key/disconnect', { csrf }, cookie);
    expect(answer.headers.get('location')).toBe('/console/my-key?flash=my-key-removed');
    const view = await bridge.until(() => publishesFor(ADA)[before], 'the Home tab republished');
    expect(keyLine(view)).toContain('not connected');
  });

  it('is republished at once when an admin removes the key on the Keys page', async () => {
    expect(keyLine(await openHome(GRACE))).toContain('connected ····Gr42');
    const before = publishesFor(GRACE).length;
    const { cookie, csrf } = await signInWithToken();
    const answer = await post('/console/keys/remove', { csrf, person: GRACE }, cookie);
    expect(answer.headers.get('location')).toBe('/console/keys?flash=key-removed');
    const view = await bridge.until(() => publishesFor(GRACE)[before], 'the Home tab republished');
    expect(keyLine(view)).toContain('not connected');
  });

  it('owes nothing to someone who never opened their Home tab, nor when there was no key to remove', async () => {
    const { cookie, csrf } = await signInWithToken();
    expect((await post('/console/keys/remove', { csrf, person: BOB }, cookie)).headers.get('location')).toBe('/console/keys?flash=key-removed');
    expect(await service.store.personKeys.get(BOB)).toBeUndefined();
    expect(await service.store.outbox.list({ destination: homeDestination(BOB) })).toEqual([]);
    // Grace's key is gone already: removing again finds none and owes her nothing new.
    const graceRows = (await service.store.outbox.list({ destination: homeDestination(GRACE) })).length;
    expect((await post('/console/keys/remove', { csrf, person: GRACE }, cookie)).headers.get('location')).toBe('/console/keys?flash=key-absent');
    expect(await service.store.outbox.list({ destination: homeDestination(GRACE) })).toHaveLength(graceRows);
  });
});
