/**
 * Sign in with Slack on the real service over plain HTTP, against a fake OpenID provider that signs
 * real id_tokens: the flow (discovery, state, nonce, PKCE), what a person who is not an admin may see
 * and do (their own runs, their own key), admins named by console.admins, the admin token still
 * working, and every wrong answer — signature, nonce, audience, issuer, state — refused with a page
 * that says so and no session.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import type { RunningService } from '../../src/main.js';
import { CapturingLogger } from '../core/capturing-logger.js';
import { freePort, startFakeOidcProvider, type FakeOidcProvider, type ProviderUser, type Tamper } from '../fakes/oidc-provider.js';
import { consoleHttp, cookiesOf, csrfIn, sessionCookieOf } from '../helpers/console-http.js';
import { startBridge } from '../helpers/start-bridge.js';
import { aRun, aTrigger } from '../store/helpers.js';

const CLIENT_ID = '1234567890.0987654321';
const CLIENT_SECRET = 'slack-client-secret-0123456789abcdef';
const TOKEN = 'console-admin-token-sign-in-with-slack-0123';
// The emulator accepts one key: it stands in for a person's valid personal key.
const VALID_KEY = 'wk_personal_slack_signin_0123456789Zq7w';
const REFUSED_KEY = 'wk_personal_not_valid_0123456789abcdJ4k8';
const ADA: ProviderUser = { userId: 'U0ADA0001', teamId: 'T0TEAM001', name: 'Ada Lovelace' };
const BOB: ProviderUser = { userId: 'U0BOB0002', teamId: 'T0TEAM001', name: 'Bob' };
const ADMIN: ProviderUser = { userId: 'U0ADMIN03', teamId: 'T0TEAM001', name: 'Grace (admin)' };

let provider: FakeOidcProvider;
let emulator: RunningEmulator;
let service: RunningService;
const logger = new CapturingLogger();
const pages: string[] = [];

beforeAll(async () => {
  provider = await startFakeOidcProvider({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
  emulator = await startEmulator({ apiKey: VALID_KEY, port: 0, manual: true });
  const port = await freePort();
  ({ service } = await startBridge({
    agentApi: { baseUrl: emulator.baseUrl, apiKey: VALID_KEY },
    env: {
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      CONSOLE_ADMIN_TOKEN: TOKEN,
      SLACK_CLIENT_ID: CLIENT_ID,
      SLACK_CLIENT_SECRET: CLIENT_SECRET,
      SLACK_OIDC_ISSUER: provider.issuer,
      AGENT_BRIDGE_SECRET: 'bridge-secret-'.padEnd(40, 's'),
    },
    yaml: `console:\n  admins: [${ADMIN.userId}]\n`,
    logger,
  }));
  // Two runs: one Ada asked for, one Bob asked for.
  // Seeded as the intake worker would have left them, and never due: the running service must not work them into runs of its own.
  const NOT_DUE = Date.now() + 86_400_000;
  for (const [runId, person, at] of [
    ['run-ada-1', ADA, 1_000],
    ['run-bob-1', BOB, 2_000],
  ] as const) {
    const key = `Ev-${runId}`;
    const base = aTrigger();
    await service.store.triggers.enqueue({
      trigger: aTrigger({ key, payload: { ...base.payload, requester: { platform: 'slack', id: person.userId, name: person.name } } }),
      now: at,
      dueAt: NOT_DUE,
    });
    await service.store.trackedRuns.insert(aRun(runId, { triggerKey: key, title: `Work for ${person.name}`, state: 'INPROGRESS' }), at);
  }
  // A Linear request by Ada's linked Linear account: its requester is the Linear user, its key Ada's.
  const base = aTrigger();
  await service.store.triggers.enqueue({
    trigger: aTrigger({
      key: 'Ev-run-linear-ada',
      source: 'linear',
      payload: { ...base.payload, requester: { platform: 'linear', id: 'lin-user-ada', name: 'ada.l' } },
    }),
    now: 3_000,
    dueAt: NOT_DUE,
  });
  await service.store.trackedRuns.insert(aRun('run-linear-ada', { triggerKey: 'Ev-run-linear-ada', source: 'linear', personalKeyOwner: ADA.userId }), 3_000);
  // What Ada's and Bob's runs of this month used, as the tracker recorded it.
  for (const [runId, person, usage] of [
    ['run-ada-usage', ADA, { inferenceCost: 1.5, computeCost: 0.25 }],
    ['run-bob-usage', BOB, { inferenceCost: 7 }],
  ] as const) {
    await service.store.trackedRuns.insert(aRun(runId, { triggerKey: null, askedBy: person.userId, routeName: 'web', state: 'SUCCEEDED' }), Date.now());
    await service.store.trackedRuns.recordUsage([{ runId, usage }], Date.now());
  }
});
afterAll(async () => {
  await service?.stop();
  await emulator?.close();
  await provider?.close();
});

const { get, post } = consoleHttp(() => service.url);
async function text(response: Response): Promise<string> {
  const body = await response.text();
  pages.push(body);
  return body;
}

/** The cancel triggers stored for a run (trigger ids count up from 1; the run id is in the payload). */
async function cancelsOf(runId: string) {
  const found = [];
  for (let id = 1; id <= 50; id++) {
    const trigger = await service.store.triggers.get(id);
    if (trigger?.kind === 'cancel' && trigger.payload.runId === runId) found.push(trigger);
  }
  return found;
}

/** Up to the provider's answer: the callback URL it sends the browser to, and the pending sign-in cookie. */
async function toCallback(user: ProviderUser, next = '/console/runs'): Promise<{ callback: URL; pending: string }> {
  provider.signInAs(user);
  const start = await get(`/console/auth/slack?next=${encodeURIComponent(next)}`);
  expect(start.status).toBe(303);
  const pending = cookiesOf(start).join('; ');
  expect(pending).toMatch(/^agent_bridge_console_oidc=./);
  const authorize = await get(start.headers.get('location') ?? '');
  expect(authorize.status).toBe(302);
  return { callback: new URL(authorize.headers.get('location') ?? ''), pending };
}

/** The whole sign-in as a browser does it; returns the session cookie and a CSRF token. */
async function signIn(user: ProviderUser): Promise<{ cookie: string; csrf: string }> {
  const { callback, pending } = await toCallback(user);
  const done = await get(callback.href, pending);
  expect(done.status).toBe(303);
  expect(done.headers.get('location')).toBe('/console/runs');
  const cookie = sessionCookieOf(done) ?? '';
  expect(cookie).not.toBe('');
  const runs = await get('/console/runs', cookie);
  expect(runs.status).toBe(200);
  return { cookie, csrf: csrfIn(await text(runs)) };
}

describe('Sign in with Slack', () => {
  it('offers Slack on the sign-in page beside the admin token, and discovers the provider only at the first sign-in', async () => {
    const page = await text(await get('/console/sign-in'));
    expect(page).toContain('href="/console/auth/slack?next=%2Fconsole%2Fruns"');
    expect(page).toContain('name="token"');
    expect(page).not.toContain(CLIENT_SECRET);
  });

  it('sends state, nonce and a PKCE challenge; the code is exchanged with the verifier and the client secret', async () => {
    await signIn(ADA);
    const authorize = provider.authorizeRequests.at(-1) ?? {};
    expect(authorize).toMatchObject({ client_id: CLIENT_ID, response_type: 'code', scope: 'openid profile', code_challenge_method: 'S256' });
    expect(authorize['redirect_uri']).toBe(`${service.url}/console/auth/slack/callback`);
    for (const field of ['state', 'nonce', 'code_challenge']) expect(authorize[field]?.length ?? 0).toBeGreaterThanOrEqual(22);
    const token = provider.tokenRequests.at(-1) ?? {};
    expect(token).toMatchObject({ grant_type: 'authorization_code', client_id: CLIENT_ID, client_secret: CLIENT_SECRET });
    expect(token['code_verifier']?.length ?? 0).toBeGreaterThanOrEqual(43);
    expect(JSON.stringify(logger.lines)).not.toContain(CLIENT_SECRET);
  });

  it('shows a person only their own runs; someone else’s run is not found and cannot be cancelled', async () => {
    const { cookie, csrf } = await signIn(ADA);
    const runs = await text(await get('/console/runs', cookie));
    expect(runs).toContain('data-run="run-ada-1"');
    expect(runs).toContain('data-run="run-linear-ada"');
    expect(runs).not.toContain('run-bob-1');
    expect(runs).toContain('Ada Lovelace');
    // A filter cannot widen the view.
    expect(await text(await get(`/console/runs?person=${BOB.userId}`, cookie))).not.toContain('run-bob-1');
    expect((await get('/console/run?id=run-bob-1', cookie)).status).toBe(404);
    expect((await get('/console/run?id=run-ada-1', cookie)).status).toBe(200);
    expect((await get('/console/run?id=run-linear-ada', cookie)).status).toBe(200);

    expect((await post('/console/run/cancel', { id: 'run-bob-1', csrf }, cookie)).status).toBe(404);
    expect(await cancelsOf('run-bob-1')).toEqual([]);
    expect((await post('/console/run/cancel', { id: 'run-ada-1', csrf }, cookie)).status).toBe(303);
    const [cancel] = await cancelsOf('run-ada-1');
    expect(cancel?.payload.requester).toEqual({ platform: 'slack', id: ADA.userId, name: ADA.name });
  });

  it('shows a person their own usage of the last 30 days on their key page, and nobody else’s', async () => {
    const { cookie } = await signIn(ADA);
    const page = await text(await get('/console/my-key', cookie));
    // Her run with usage, and any other she asked for in this file (without usage yet): Bob's 7 credits are not hers.
    expect(page).toMatch(/data-testid="my-usage">\s*\d+ runs?, 1\.75 credits \(inference\s+1\.5, compute 0\.25\)/);
    expect(page).toMatch(/<td>web<\/td>\s*<td>\d+<\/td>\s*<td>1\.75<\/td>/);
    expect(page).not.toContain('>7<');
  });

  it.each(['/console/attention', '/console/schedules', '/console/usage', '/console/health', '/console/keys'])(
    'answers %s with a 403 page to someone who is not an admin',
    async (path) => {
      const { cookie } = await signIn(BOB);
      const answer = await get(path, cookie);
      expect(answer.status).toBe(403);
      expect(await text(answer)).toContain('Admins only');
    },
  );

  it('refuses admins’ actions to someone who is not an admin (403, nothing changed), and hides their pages from the navigation', async () => {
    const { cookie, csrf } = await signIn(BOB);
    const answer = await post('/console/keys/connect', { csrf, person: BOB.userId, key: VALID_KEY }, cookie);
    expect(answer.status).toBe(403);
    expect(await service.store.personKeys.get(BOB.userId)).toBeUndefined();
    const runs = await text(await get('/console/runs', cookie));
    expect(runs).not.toContain('run-linear-ada');
    expect(runs).not.toContain('href="/console/attention"');
    expect(runs).not.toContain('href="/console/audit"');
    expect(runs).toContain('href="/console/my-key"');
    // The audit trail is the admins': a person who is not one is refused it.
    expect((await get('/console/audit', cookie)).status).toBe(403);
  });

  it('lets a person console.admins names see everything', async () => {
    const { cookie } = await signIn(ADMIN);
    const runs = await text(await get('/console/runs', cookie));
    expect(runs).toContain('run-bob-1');
    expect(runs).toContain('run-ada-1');
    expect((await get('/console/attention', cookie)).status).toBe(200);
    expect((await get('/console/run?id=run-bob-1', cookie)).status).toBe(200);
  });

  it('keeps the admin token as the break-glass sign-in', async () => {
    const form = await get('/console/sign-in');
    const answer = await post('/console/sign-in', { csrf: csrfIn(await form.text()), token: TOKEN }, cookiesOf(form).join('; '));
    expect(answer.status).toBe(303);
    const runs = await text(await get('/console/runs', sessionCookieOf(answer)));
    expect(runs).toContain('run-bob-1');
  });

  it('connects a person’s own key after one check with the run API; shows only its last 4; disconnects it', async () => {
    const { cookie, csrf } = await signIn(ADA);
    const connect = async (key: string) => (await post('/console/my-key/connect', { csrf, key }, cookie)).headers.get('location');
    expect(await connect(REFUSED_KEY)).toBe('/console/my-key?flash=key-refused');
    expect(await service.store.personKeys.get(ADA.userId)).toBeUndefined();
    expect(await connect('two words')).toBe('/console/my-key?flash=key-bad-key');
    expect(await connect(VALID_KEY)).toBe('/console/my-key?flash=key-connected');
    const page = await text(await get('/console/my-key?flash=key-connected', cookie));
    expect(page).toContain(`…${VALID_KEY.slice(-4)}`);
    expect(page).toContain('Connected: the run API accepted the key');
    expect((await service.store.personKeys.get(ADA.userId))?.lastFour).toBe(VALID_KEY.slice(-4));
    // Someone else's key page is their own: Bob sees none.
    const bob = await signIn(BOB);
    expect(await text(await get('/console/my-key', bob.cookie))).toContain('No key is connected');

    expect((await post('/console/my-key/disconnect', { csrf }, cookie)).headers.get('location')).toBe('/console/my-key?flash=my-key-removed');
    expect(await service.store.personKeys.get(ADA.userId)).toBeUndefined();
    expect((await post('/console/my-key/disconnect', { csrf }, cookie)).headers.get('location')).toBe('/console/my-key?flash=my-key-absent');
  });

  it('changes nothing on a key form without the CSRF token', async () => {
    const { cookie } = await signIn(ADA);
    expect((await post('/console/my-key/connect', { key: VALID_KEY }, cookie)).status).toBe(403);
    expect(await service.store.personKeys.get(ADA.userId)).toBeUndefined();
  });

  it('shows a hostile display name as text, and never leaves the console after signing in', async () => {
    const hostile = { userId: 'U0EVIL0004', teamId: 'T0TEAM001', name: '<script>window.__pwned=1</script>"><img src=x onerror=alert(1)>' };
    const { callback, pending } = await toCallback(hostile, 'https://evil.example.com/phish');
    const done = await get(callback.href, pending);
    expect(done.headers.get('location')).toBe('/console/runs');
    const page = await text(await get('/console/runs', sessionCookieOf(done)));
    expect(page).toContain('&lt;script&gt;window.__pwned=1&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
    expect(page).not.toContain('<script>window.__pwned');
    expect(page).not.toContain('<img src=x');
  });

  it('does not check the workspace when Slack is off (no bot token names ours)', async () => {
    const { cookie } = await signIn({ userId: 'U0ELSE0005', teamId: 'T0ELSEWHERE', name: 'From another workspace' });
    expect(cookie).not.toBe('');
  });

  it('does not take a session cookie whose person or admin flag was edited', async () => {
    const { cookie } = await signIn(BOB);
    const [name, value] = cookie.split('=') as [string, string];
    const parts = value.split('.');
    const who = JSON.parse(Buffer.from(parts[2] ?? '', 'base64url').toString()) as Record<string, unknown>;
    parts[2] = Buffer.from(JSON.stringify({ ...who, p: ADMIN.userId, a: 1 })).toString('base64url');
    const forged = await get('/console/attention', `${name}=${parts.join('.')}`);
    expect(forged.status).toBe(303);
    expect(forged.headers.get('location')).toMatch(/^\/console\/sign-in/);
  });
});

describe('Sign in with Slack refuses a wrong answer with a page and no session', () => {
  async function refused(response: Response, status: number): Promise<string> {
    expect(response.status).toBe(status);
    expect(sessionCookieOf(response)).toBeUndefined();
    const page = await text(response);
    expect(page).toContain('Sign in with Slack failed');
    expect(page).toContain('You are not signed in.');
    return page;
  }

  it.each<[Tamper, RegExp]>([
    ['signature', /signature does not match the provider(&#39;|')s keys/],
    ['nonce', /nonce/i],
    ['audience', /aud/i],
    ['issuer', /iss/i],
  ])('a wrong %s in the id_token', async (tamper, says) => {
    const { callback, pending } = await toCallback(ADA);
    provider.tamperNext(tamper);
    const page = await refused(await get(callback.href, pending), 401);
    expect(page).toMatch(says);
  });

  it.each([
    ['a wrong state', (url: URL) => url.searchParams.set('state', 'not-the-state-we-sent-0123456789')],
    ['a missing state', (url: URL) => url.searchParams.delete('state')],
    ['the provider’s refusal', (url: URL) => (url.searchParams.delete('code'), url.searchParams.set('error', 'access_denied'))],
  ])('%s', async (_name, spoil) => {
    const { callback, pending } = await toCallback(ADA);
    spoil(callback);
    await refused(await get(callback.href, pending), 401);
  });

  it('a callback without the sign-in it belongs to (another browser, or expired)', async () => {
    const { callback } = await toCallback(ADA);
    const page = await refused(await get(callback.href), 400);
    expect(page).toContain('not started here, or it expired');
  });

  it('a code used twice', async () => {
    const { callback, pending } = await toCallback(ADA);
    expect((await get(callback.href, pending)).status).toBe(303);
    await refused(await get(callback.href, pending), 401);
  });

  it('never shows a key, a secret or a code on any page', () => {
    const all = pages.join('\n');
    expect(all).not.toContain(VALID_KEY);
    expect(all).not.toContain(REFUSED_KEY);
    expect(all).not.toContain(CLIENT_SECRET);
    expect(all).not.toContain(TOKEN);
    expect(JSON.stringify(logger.lines)).not.toContain(VALID_KEY);
  });
});
