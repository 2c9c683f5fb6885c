/**
 * The console's sessions, attacked on running services.
 *
 * - Without CONSOLE_ADMIN_TOKEN, sessions were signed with a key derived from SLACK_CLIENT_SECRET
 *   alone — a secret Slack and every collaborator of the Slack app can read — so anyone holding it
 *   minted an admin session. They are now signed with a key only the service holds: generated once and
 *   kept in the database, shared by every replica (or derived from AGENT_BRIDGE_SECRET when set).
 * - Signing out ends the session on the server, for every replica: the old cookie and its CSRF token
 *   are refused at once, not after 12 hours.
 * - A person removed from console.admins (a restart with a smaller list) is no longer an admin in the
 *   session they already have.
 *
 * Two replicas share one SQLite file, as two processes on one database do.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import type { RunningService } from '../../src/main.js';
import { freePort, startFakeOidcProvider, type FakeOidcProvider, type ProviderUser } from '../fakes/oidc-provider.js';
import { cookiesOf, csrfIn, sessionCookieOf } from '../helpers/console-http.js';
import { startBridge } from '../helpers/start-bridge.js';
import { tempDir } from '../helpers/spawn-cli.js';

const CLIENT_ID = '1234567890.5555555555';
const CLIENT_SECRET = 'slack-client-secret-sessions-0123456789';
const API_KEY = 'console-sessions-run-api-key';
const ADMIN: ProviderUser = { userId: 'U0ADMIN01', teamId: 'T0TEAM001', name: 'Grace (admin)' };
const ADA: ProviderUser = { userId: 'U0ADA0002', teamId: 'T0TEAM001', name: 'Ada' };

let provider: FakeOidcProvider;
let emulator: RunningEmulator;
let cwd: string;
let port: number;
/** Two replicas on one database. */
let first: RunningService;
let second: RunningService;

const env = () => ({
  PORT: String(port),
  PUBLIC_URL: `http://127.0.0.1:${port}`,
  SLACK_CLIENT_ID: CLIENT_ID,
  SLACK_CLIENT_SECRET: CLIENT_SECRET,
  SLACK_OIDC_ISSUER: provider.issuer,
});
const startReplica = (admins: string[], extra: Record<string, string> = {}, listenPort = port) =>
  startBridge({
    agentApi: { baseUrl: emulator.baseUrl, apiKey: API_KEY },
    cwd,
    env: { ...env(), PORT: String(listenPort), ...extra },
    yaml: `console:\n  admins: [${admins.join(', ')}]\n`,
  }).then((started) => started.service);

beforeAll(async () => {
  provider = await startFakeOidcProvider({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
  emulator = await startEmulator({ apiKey: API_KEY, port: 0, manual: true });
  cwd = tempDir();
  port = await freePort();
  first = await startReplica([ADMIN.userId]);
  second = await startReplica([ADMIN.userId], {}, 0);
});
afterAll(async () => {
  await second?.stop();
  await first?.stop();
  await emulator?.close();
  await provider?.close();
});

const get = (service: RunningService, path: string, cookie = '') =>
  fetch(path.startsWith('http') ? path : `${service.url}${path}`, { redirect: 'manual', headers: { cookie } });
const post = (service: RunningService, path: string, form: Record<string, string>, cookie = '') =>
  fetch(`${service.url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });

/** Sign in with Slack on `service` as a browser does; the session cookie and a page's CSRF token. */
async function signIn(service: RunningService, user: ProviderUser): Promise<{ cookie: string; csrf: string }> {
  provider.signInAs(user);
  const start = await get(service, '/console/auth/slack?next=%2Fconsole%2Fruns');
  const pending = cookiesOf(start).join('; ');
  const authorize = await get(service, start.headers.get('location') ?? '');
  const done = await get(service, authorize.headers.get('location') ?? '', pending);
  expect(done.status).toBe(303);
  const cookie = sessionCookieOf(done) ?? '';
  const runs = await get(service, '/console/runs', cookie);
  expect(runs.status).toBe(200);
  return { cookie, csrf: csrfIn(await runs.text()) };
}

/** Where a GET with `cookie` lands: 200 with the page, or the sign-in page. */
async function landsOn(service: RunningService, path: string, cookie: string): Promise<'page' | 'sign-in' | number> {
  const answer = await get(service, path, cookie);
  await answer.arrayBuffer();
  if (answer.status === 200) return 'page';
  if (answer.status === 303 && answer.headers.get('location')?.startsWith('/console/sign-in')) return 'sign-in';
  return answer.status;
}

/** A session cookie as the service once signed them without CONSOLE_ADMIN_TOKEN: from SLACK_CLIENT_SECRET alone. */
function forgedWithClientSecret(who: string): string {
  const key = createHmac('sha256', ['', CLIENT_SECRET].join('\n')).update('agent-bridge console sessions v2').digest();
  const body = `${randomBytes(16).toString('base64url')}.${Date.now() + 3_600_000}.${who}`;
  return `agent_bridge_console=${body}.${createHmac('sha256', key).update(`session:${body}`).digest('base64url')}`;
}

describe('console sessions are signed with a key only the service holds', () => {
  it('refuses an admin session, or one naming an admin, minted with the Slack client secret', async () => {
    const person = Buffer.from(JSON.stringify({ p: ADMIN.userId, n: 'Grace (admin)', a: 1 })).toString('base64url');
    for (const forged of [forgedWithClientSecret('admin'), forgedWithClientSecret(person)]) {
      expect(await landsOn(first, '/console/attention', forged)).toBe('sign-in');
      expect(await landsOn(second, '/console/runs', forged)).toBe('sign-in');
    }
  });

  it('keeps one generated key in the database, so a session works on every replica', async () => {
    const db = new Database(join(cwd, 'bridge.db'), { readonly: true });
    const keys = db.prepare<[], { name: string; value: string }>('SELECT name, value FROM console_keys').all();
    db.close();
    expect(keys.map((key) => key.name)).toEqual(['session']);
    expect(Buffer.from(keys[0]?.value ?? '', 'base64url').length).toBe(32);
    const { cookie } = await signIn(first, ADMIN);
    expect(await landsOn(second, '/console/attention', cookie)).toBe('page');
  });
});

describe('signing out ends the session on the server', () => {
  it('refuses the old cookie and its CSRF token afterwards, on every replica', async () => {
    const { cookie, csrf } = await signIn(first, ADA);
    expect(await landsOn(second, '/console/runs', cookie)).toBe('page');
    const out = await post(first, '/console/sign-out', { csrf }, cookie);
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toBe('/console/sign-in');

    // A copy of the cookie kept from before is replayed.
    for (const replica of [first, second]) {
      expect(await landsOn(replica, '/console/runs', cookie)).toBe('sign-in');
      expect(await landsOn(replica, '/console/my-key', cookie)).toBe('sign-in');
      const form = await post(replica, '/console/my-key/disconnect', { csrf }, cookie);
      expect(form.status).toBe(403);
      await form.arrayBuffer();
    }
    // Another session of the same person is not touched.
    const again = await signIn(second, ADA);
    expect(await landsOn(first, '/console/runs', again.cookie)).toBe('page');
  });
});

describe('removal from console.admins', () => {
  it('an admin session of a person no longer named is not an admin after the restart', async () => {
    const { cookie } = await signIn(first, ADMIN);
    expect(await landsOn(first, '/console/attention', cookie)).toBe('page');
    await second.stop();
    await first.stop();
    // New ports: a kept-alive connection to the stopped replicas is not reused by mistake.
    first = await startReplica([], {}, 0);
    second = await startReplica([], {}, 0);
    for (const replica of [first, second]) {
      expect(await landsOn(replica, '/console/attention', cookie)).toBe(403);
      // Still signed in, as the person they are: their own runs and key.
      expect(await landsOn(replica, '/console/runs', cookie)).toBe('page');
    }
  });
});

describe('with AGENT_BRIDGE_SECRET', () => {
  it('derives the key from it: nothing is stored, and replicas with the same secret share sessions', async () => {
    const secretCwd = tempDir();
    const secret = { AGENT_BRIDGE_SECRET: 'bridge-secret-for-console-sessions-0123456789' };
    const secretPort = await freePort();
    const start = (listenPort: number) =>
      startBridge({
        agentApi: { baseUrl: emulator.baseUrl, apiKey: API_KEY },
        cwd: secretCwd,
        env: { ...env(), PORT: String(listenPort), PUBLIC_URL: `http://127.0.0.1:${secretPort}`, ...secret },
        yaml: `console:\n  admins: [${ADMIN.userId}]\n`,
      }).then((started) => started.service);
    const a = await start(secretPort);
    const b = await start(0);
    try {
      const { cookie } = await signIn(a, ADMIN);
      expect(await landsOn(b, '/console/attention', cookie)).toBe('page');
      expect(await landsOn(a, '/console/attention', forgedWithClientSecret('admin'))).toBe('sign-in');
      const db = new Database(join(secretCwd, 'bridge.db'), { readonly: true });
      expect(db.prepare('SELECT COUNT(*) AS n FROM console_keys').get()).toEqual({ n: 0 });
      db.close();
    } finally {
      await b.stop();
      await a.stop();
    }
  });
});
