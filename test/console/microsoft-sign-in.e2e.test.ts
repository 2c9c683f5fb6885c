/**
 * Sign in with Microsoft on the real service with Teams on (the fake Teams for the bot's metadata and
 * tokens), against the fake OpenID provider started as Microsoft's (no PKCE in its discovery document,
 * id_tokens with `oid`, `tid` and a pairwise `sub`): the button, a Teams person signed in as
 * `teams:<oid>` seeing only the runs they asked for in Teams, an admin named by console.admins as
 * `teams:<oid>`, and a person of another tenant or a tampered state refused with a page and no session.
 * Teams alone turns the console on: there is no admin token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import type { RunningService } from '../../src/main.js';
import { CapturingLogger } from '../core/capturing-logger.js';
import { freePort, startFakeOidcProvider, type FakeOidcProvider, type MicrosoftUser } from '../fakes/oidc-provider.js';
import { startFakeTeams, type FakeTeams } from '../fakes/teams-api.js';
import { TEAMS_IDS, TEAMS_PEOPLE } from '../fixtures/teams/index.js';
import { consoleHttp, cookiesOf, sessionCookieOf } from '../helpers/console-http.js';
import { startBridge } from '../helpers/start-bridge.js';
import { aRun, aTrigger } from '../store/helpers.js';

const CLIENT_SECRET = 'teams-client-secret-sign-in-0123456789';
const KEY = 'wk_microsoft_sign_in_0123456789abcdefZq7w';
const OTHER_TENANT = '0f0e0d0c-0b0a-4909-8807-060504030201';
const person = (who: keyof typeof TEAMS_PEOPLE): MicrosoftUser => ({ oid: TEAMS_PEOPLE[who].aadObjectId, tid: TEAMS_IDS.tenant, name: TEAMS_PEOPLE[who].name });
const ADA = person('ada');
const MALLORY = person('mallory');
const GRACE = person('grace');

let provider: FakeOidcProvider;
let teams: FakeTeams;
let emulator: RunningEmulator;
let service: RunningService;
let publicUrl: string;
const logger = new CapturingLogger();
const pages: string[] = [];

beforeAll(async () => {
  provider = await startFakeOidcProvider({ clientId: TEAMS_IDS.clientId, clientSecret: CLIENT_SECRET, advertisesPkce: false });
  teams = await startFakeTeams({ clientId: TEAMS_IDS.clientId, clientSecret: CLIENT_SECRET, tenantId: TEAMS_IDS.tenant });
  emulator = await startEmulator({ apiKey: KEY, port: 0, manual: true });
  const port = await freePort();
  publicUrl = `http://127.0.0.1:${port}`;
  ({ service } = await startBridge({
    agentApi: { baseUrl: emulator.baseUrl, apiKey: KEY },
    env: {
      PORT: String(port),
      PUBLIC_URL: publicUrl,
      TEAMS_CLIENT_ID: TEAMS_IDS.clientId,
      TEAMS_CLIENT_SECRET: CLIENT_SECRET,
      TEAMS_TENANT_ID: TEAMS_IDS.tenant,
      TEAMS_OPENID_METADATA_URL: teams.openIdMetadataUrl,
      TEAMS_LOGIN_URL: teams.loginUrl,
      TEAMS_OIDC_ISSUER: provider.issuer,
    },
    yaml: `console:\n  admins: [teams:${GRACE.oid}]\n`,
    logger,
  }));
  // A run each for Ada and Mallory, asked for in Teams, as the intake worker would have left them and never due.
  const NOT_DUE = Date.now() + 86_400_000;
  for (const [runId, who, at] of [
    ['run-ada-teams', ADA, 1_000],
    ['run-mallory-teams', MALLORY, 2_000],
  ] as const) {
    const key = `Ev-${runId}`;
    const base = aTrigger();
    await service.store.triggers.enqueue({
      trigger: aTrigger({ key, source: 'teams', payload: { ...base.payload, requester: { platform: 'teams', id: who.oid, name: who.name ?? '' } } }),
      now: at,
      dueAt: NOT_DUE,
    });
    await service.store.trackedRuns.insert(aRun(runId, { triggerKey: key, source: 'teams', title: `Work for ${who.name ?? ''}`, state: 'INPROGRESS' }), at);
  }
});
afterAll(async () => {
  await service?.stop();
  await emulator?.close();
  await teams?.close();
  await provider?.close();
});

const { get } = consoleHttp(() => service.url);
async function text(response: Response): Promise<string> {
  const body = await response.text();
  pages.push(body);
  return body;
}

/** The sign-in as a browser does it, up to the callback's answer; `spoil` changes the callback URL first. */
async function signIn(user: MicrosoftUser, spoil: (callback: URL) => void = () => {}): Promise<Response> {
  provider.signInAs(user);
  const start = await get('/console/auth/microsoft?next=%2Fconsole%2Fruns');
  expect(start.status).toBe(303);
  const authorize = await get(start.headers.get('location') ?? '');
  expect(authorize.status).toBe(302);
  const callback = new URL(authorize.headers.get('location') ?? '');
  spoil(callback);
  return get(callback.href, cookiesOf(start).join('; '));
}

/** Signed in: the session cookie. */
async function sessionOf(user: MicrosoftUser): Promise<string> {
  const done = await signIn(user);
  expect(done.status).toBe(303);
  expect(done.headers.get('location')).toBe('/console/runs');
  const cookie = sessionCookieOf(done) ?? '';
  expect(cookie).not.toBe('');
  return cookie;
}

describe('Sign in with Microsoft', () => {
  it('has a button on the sign-in page, and is announced in the start log with its redirect URL', async () => {
    const page = await text(await get('/console/sign-in?next=%2Fconsole%2Faudit'));
    expect(page).toContain(
      '<a class="button" href="/console/auth/microsoft?next=%2Fconsole%2Faudit" data-testid="microsoft-sign-in">Sign in with Microsoft</a>',
    );
    const on = logger.lines.find((line) => line.msg === 'Sign in with Microsoft is on');
    expect(on?.fields).toMatchObject({ redirectUrl: `${publicUrl}/console/auth/microsoft/callback`, issuer: provider.issuer, tenantId: TEAMS_IDS.tenant });
  });

  it('signs a Teams person in as teams:<oid> through the code flow with PKCE, and shows them only the runs they asked for', async () => {
    const cookie = await sessionOf(ADA);
    expect(provider.authorizeRequests.at(-1)).toMatchObject({ scope: 'openid profile email', code_challenge_method: 'S256' });
    expect(provider.tokenRequests.at(-1)?.['code_verifier']?.length ?? 0).toBeGreaterThanOrEqual(43);
    expect(logger.lines.some((line) => line.msg === 'signed in to the console with Microsoft' && line.fields['person'] === `teams:${ADA.oid}`)).toBe(true);
    const runs = await text(await get('/console/runs', cookie));
    expect(runs).toContain('Ada Lovelace');
    expect(runs).toContain('data-run="run-ada-teams"');
    expect(runs).not.toContain('run-mallory-teams');
    expect((await get('/console/run?id=run-ada-teams', cookie)).status).toBe(200);
    expect((await get('/console/run?id=run-mallory-teams', cookie)).status).toBe(404);
    expect((await get('/console/attention', cookie)).status).toBe(403);
  });

  it('lets a Teams person console.admins names as teams:<oid> see everything', async () => {
    const cookie = await sessionOf(GRACE);
    const runs = await text(await get('/console/runs', cookie));
    expect(runs).toContain('run-ada-teams');
    expect(runs).toContain('run-mallory-teams');
    expect((await get('/console/attention', cookie)).status).toBe(200);
  });
});

describe('Sign in with Microsoft refuses with a page and no session', () => {
  async function refused(response: Response, status: number): Promise<string> {
    expect(response.status).toBe(status);
    expect(sessionCookieOf(response)).toBeUndefined();
    const page = await text(response);
    expect(page).toContain('Sign in with Microsoft failed');
    expect(page).toContain('You are not signed in.');
    return page;
  }

  it('a person of another tenant, saying which tenant the console is for', async () => {
    const page = await refused(await signIn({ ...ADA, tid: OTHER_TENANT }), 403);
    expect(page).toContain(
      `Your Microsoft account belongs to another organisation (tenant ${OTHER_TENANT}); this console is for tenant ${TEAMS_IDS.tenant} only.`,
    );
    expect(logger.lines.some((line) => line.msg === 'Sign in with Microsoft refused' && String(line.fields['reason']).includes(OTHER_TENANT))).toBe(true);
  });

  it('a tampered state', async () => {
    const page = await refused(await signIn(ADA, (callback) => callback.searchParams.set('state', 'not-the-state-we-sent-0123456789')), 401);
    expect(page).toContain('Microsoft&#39;s answer was refused');
  });

  it('never shows the client secret or a code on a page, nor logs the secret', () => {
    const all = pages.join('\n');
    expect(all).not.toContain(CLIENT_SECRET);
    expect(all).not.toMatch(/[?&]code=/);
    expect(JSON.stringify(logger.lines)).not.toContain(CLIENT_SECRET);
  });
});
