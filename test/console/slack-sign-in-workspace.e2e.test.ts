/**
 * Sign in with Slack admits only people of our own workspace: with Slack on, the bot token's
 * `auth.test` (the fake Slack Web API) names the workspace at start, and an id_token from the fake
 * OpenID provider naming another workspace (`https://slack.com/team_id`) — or none — is refused with
 * the "Sign in with Slack failed" page and no session, while someone of our workspace signs in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/main.js';
import { CapturingLogger } from '../core/capturing-logger.js';
import type { FakeSlackApi } from '../fakes/slack-api.js';
import { startFakeOidcProvider, type FakeOidcProvider, type ProviderUser } from '../fakes/oidc-provider.js';
import { consoleHttp, cookiesOf, sessionCookieOf } from '../helpers/console-http.js';
import { startSlackBridge, type SlackBridge } from '../helpers/slack-bridge.js';

const CLIENT_ID = '1234567890.1122334455';
const CLIENT_SECRET = 'slack-client-secret-workspace-0123456789';
const OUR_TEAM = 'T0OURTEAM1';
const OURS: ProviderUser = { userId: 'U0OURS0001', teamId: OUR_TEAM, name: 'Ada of ours' };
const STRANGER: ProviderUser = { userId: 'U0ELSE0002', teamId: 'T0ELSEWHERE', name: 'Mallory elsewhere' };

let provider: FakeOidcProvider;
let bridge: SlackBridge;
let slack: FakeSlackApi, service: RunningService;
const logger = new CapturingLogger();

beforeAll(async () => {
  provider = await startFakeOidcProvider({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
  bridge = await startSlackBridge({
    fake: { teamId: OUR_TEAM },
    signIn: { issuer: provider.issuer, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET },
    logger,
  });
  ({ slack, service } = bridge);
});
afterAll(async () => {
  await bridge?.stop();
  await provider?.close();
});

const { get } = consoleHttp(() => service.url);

/** The whole sign-in as a browser does it, up to the callback's answer. */
async function signInAs(user: ProviderUser): Promise<Response> {
  provider.signInAs(user);
  const start = await get('/console/auth/slack?next=%2Fconsole%2Fruns');
  expect(start.status).toBe(303);
  const authorize = await get(start.headers.get('location') ?? '');
  expect(authorize.status).toBe(302);
  return get(authorize.headers.get('location') ?? '', cookiesOf(start).join('; '));
}

describe('Sign in with Slack and the workspace', () => {
  it('read the workspace from the bot token’s auth.test at start', () => {
    expect(slack.callsTo('auth.test').length).toBeGreaterThan(0);
  });

  it('admits someone of our workspace', async () => {
    const done = await signInAs(OURS);
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('/console/runs');
    expect((await get('/console/runs', sessionCookieOf(done))).status).toBe(200);
  });

  it.each([
    ['another workspace', STRANGER, 'T0ELSEWHERE'],
    ['no workspace at all', { ...STRANGER, teamId: '' }, 'none named'],
  ])('refuses an id_token from %s with a page and no session', async (_what, user, named) => {
    const done = await signInAs(user);
    expect(done.status).toBe(403);
    expect(sessionCookieOf(done)).toBeUndefined();
    const page = await done.text();
    expect(page).toContain('Sign in with Slack failed');
    expect(page).toContain('You are not signed in.');
    expect(page).toContain(named);
    expect(page).toContain(OUR_TEAM);
    // Without a session the console sends them to the sign-in page.
    expect((await get('/console/runs', cookiesOf(done).join('; '))).headers.get('location')).toMatch(/^\/console\/sign-in/);
    expect(logger.lines.some((line) => line.msg === 'Sign in with Slack refused' && String(line.fields['reason']).includes(OUR_TEAM))).toBe(true);
  });
});
