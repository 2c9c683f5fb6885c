/**
 * A sign-in provider is something a surface contributes: a made-up second one (Sign in with
 * Parley, `made-up-sign-in.ts`) added to the list of surfaces is on beside Sign in with Slack on the
 * real service — a button each on the sign-in page, each provider's start route answering on its own
 * path, a session from the made-up one's callback, both announced in the start log and both secrets in
 * the signing key — with nothing of src/console/ changed.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { consoleAccess } from '../../src/console/console-config.js';
import { consoleSigningKey } from '../../src/console/signing-key.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import type { RunningService } from '../../src/main.js';
import { CapturingLogger } from '../core/capturing-logger.js';
import { freePort, startFakeOidcProvider, type FakeOidcProvider } from '../fakes/oidc-provider.js';
import { consoleHttp, cookiesOf, sessionCookieOf } from '../helpers/console-http.js';
import { startBridge } from '../helpers/start-bridge.js';
import { MADE_UP_LOGIN, signInAs } from './made-up-sign-in.js';

vi.mock('../../src/surface-list.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/surface-list.js')>();
  const { madeUpModule } = await import('./made-up-sign-in.js');
  return { ...original, SURFACE_MODULES: [...original.SURFACE_MODULES, madeUpModule] };
});

const SLACK = { SLACK_CLIENT_ID: '1234567890.5555', SLACK_CLIENT_SECRET: 'slack-client-secret-made-up-0123456789' };
const MADE_UP = { PARLEY_APP_ID: 'made-up-app', PARLEY_APP_PASSWORD: 'made-up-password-0123456789' };
const TOKEN = 'console-admin-token-made-up-sign-in-01234';
const KEY = 'wk_made_up_sign_in_0123456789abcdefZq7w';

let provider: FakeOidcProvider;
let emulator: RunningEmulator;
let service: RunningService;
let publicUrl: string;
const logger = new CapturingLogger();

beforeAll(async () => {
  provider = await startFakeOidcProvider({ clientId: SLACK.SLACK_CLIENT_ID, clientSecret: SLACK.SLACK_CLIENT_SECRET });
  emulator = await startEmulator({ apiKey: KEY, port: 0, manual: true });
  const port = await freePort();
  publicUrl = `http://127.0.0.1:${port}`;
  ({ service } = await startBridge({
    agentApi: { baseUrl: emulator.baseUrl, apiKey: KEY },
    env: { PORT: String(port), PUBLIC_URL: publicUrl, CONSOLE_ADMIN_TOKEN: TOKEN, SLACK_OIDC_ISSUER: provider.issuer, ...SLACK, ...MADE_UP },
    logger,
  }));
});
afterAll(async () => {
  await service?.stop();
  await emulator?.close();
  await provider?.close();
});

const { get } = consoleHttp(() => service.url);

describe('a second sign-in provider on beside Sign in with Slack', () => {
  it('has a button on the sign-in page, after Slack’s, each to its own start route', async () => {
    const page = await (await get('/console/sign-in?next=%2Fconsole%2Faudit')).text();
    const buttons = [...page.matchAll(/<a class="button" href="([^"]+)" data-testid="([a-z]+)-sign-in">([^<]+)<\/a>/g)].map((match) => match.slice(1));
    expect(buttons).toEqual([
      ['/console/auth/slack?next=%2Fconsole%2Faudit', 'slack', 'Sign in with Slack'],
      ['/console/auth/parley?next=%2Fconsole%2Faudit', 'parley', 'Sign in with Parley'],
    ]);
    // The admin token is still the way in that belongs to nobody.
    expect(page).toContain('Break-glass: the admin token');
  });

  it('answers each provider’s start route: to its own platform, with the sign-in kept in a cookie', async () => {
    const slack = await get('/console/auth/slack?next=%2Fconsole%2Fruns');
    expect(slack.status).toBe(303);
    expect(slack.headers.get('location')).toMatch(new RegExp(`^${provider.issuer}/`));
    const madeUp = await get('/console/auth/parley?next=%2Fconsole%2Fruns');
    expect(madeUp.status).toBe(303);
    expect(madeUp.headers.get('location')).toBe(
      `${MADE_UP_LOGIN}?state=state-made-up-app&redirect_uri=${encodeURIComponent(`${publicUrl}/console/auth/parley/callback`)}`,
    );
    expect(cookiesOf(madeUp).some((line) => line.startsWith('agent_bridge_console_oidc='))).toBe(true);
  });

  it('signs a person in through the made-up provider’s callback', async () => {
    signInAs({ personId: 'parley:aad-0001', name: 'Tess Parley' });
    const start = await get('/console/auth/parley?next=%2Fconsole%2Fruns');
    const done = await get('/console/auth/parley/callback?state=state-made-up-app', cookiesOf(start).join('; '));
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('/console/runs');
    const runs = await get('/console/runs', sessionCookieOf(done));
    expect(runs.status).toBe(200);
    expect(await runs.text()).toContain('Tess Parley');
    expect(logger.lines.some((line) => line.msg === 'signed in to the console with Parley' && line.fields['person'] === 'parley:aad-0001')).toBe(true);
  });

  it('refuses its callback without the sign-in it kept, with its own page and no session', async () => {
    const done = await get('/console/auth/parley/callback?state=state-made-up-app');
    expect(done.status).toBe(400);
    expect(sessionCookieOf(done)).toBeUndefined();
    expect(await done.text()).toContain('Sign in with Parley failed');
  });

  it('is announced in the start log beside Slack’s', () => {
    const messages = logger.lines.map((line) => line.msg);
    expect(messages).toEqual(expect.arrayContaining(['Sign in with Slack is on', 'Sign in with Parley is on']));
    expect(messages).toContain('web console is on (sign in with Slack or with Parley or with CONSOLE_ADMIN_TOKEN)');
  });

  it('mixes its secret into the signing key too: changing it signs everybody out', async () => {
    const keyWith = async (password: string) => {
      const env = { PUBLIC_URL: publicUrl, CONSOLE_ADMIN_TOKEN: TOKEN, ...SLACK, ...MADE_UP, PARLEY_APP_PASSWORD: password };
      const access = consoleAccess(loadConfig({ env, cwd: '/nonexistent-agent-bridge-test' }));
      if (access.mode === 'off') throw new Error('the console should be on');
      expect(access.providers.map(({ provider: on }) => on.id)).toEqual(['slack', 'parley']);
      return consoleSigningKey(access, { serviceSecret: 's'.repeat(32), sessions: { signingKey: (key) => Promise.resolve(key) }, now: 1 });
    };
    expect((await keyWith('made-up-password-0123456789')).equals(await keyWith('made-up-password-rotated-0123'))).toBe(false);
  });
});
