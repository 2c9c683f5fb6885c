/**
 * Guesses at the admin token are throttled, but a stranger cannot lock out the
 * person who holds the right token. Every caller here has the same address (127.0.0.1), as every
 * caller behind a proxy has the proxy's.
 *
 * - `GET /console/sign-in?once=…` with a link that is not valid is not a token guess: it counts
 *   against nothing, so anonymous requests (or a web page a visitor opens) lock nobody out.
 * - A browser someone signed in from carries a mark only the service can sign; its attempts count
 *   against that browser alone, so the address's lock, which strangers can fill, never applies to it.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import type { RunningService } from '../../src/main.js';
import { cookiesOf, csrfIn } from '../helpers/console-http.js';
import { startBridge } from '../helpers/start-bridge.js';

const TOKEN = 'console-admin-token-throttle-0123456789';
const API_KEY = 'sign-in-throttle-run-api-key';
let emulator: RunningEmulator;
let service: RunningService | undefined;

beforeAll(async () => {
  emulator = await startEmulator({ apiKey: API_KEY, port: 0, manual: true });
});
afterEach(async () => {
  await service?.stop();
  service = undefined;
});
afterAll(async () => {
  await emulator?.close();
});

/** A fresh service: its limiter has counted nothing yet. */
async function start(): Promise<RunningService> {
  ({ service } = await startBridge({ agentApi: { baseUrl: emulator.baseUrl, apiKey: API_KEY }, env: { CONSOLE_ADMIN_TOKEN: TOKEN } }));
  return service;
}

/** A browser: it keeps the cookies the service sets (by name), as a real one does. */
function browser(url: string) {
  const jar = new Map<string, string>();
  const keep = (response: Response) => {
    for (const line of cookiesOf(response)) {
      const [name, value = ''] = line.split('=', 2) as [string, string?];
      if (value === '') jar.delete(name);
      else jar.set(name, value);
    }
    return response;
  };
  const cookie = () => [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
  const get = async (path: string) => keep(await fetch(`${url}${path}`, { redirect: 'manual', headers: { cookie: cookie() } }));
  return {
    get,
    /** Fills in the admin token form with `token`; the answer's status. */
    async signIn(token: string): Promise<number> {
      const form = await get('/console/sign-in');
      const csrf = csrfIn(await form.text());
      const answer = keep(
        await fetch(`${url}/console/sign-in`, {
          method: 'POST',
          redirect: 'manual',
          headers: { cookie: cookie(), 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ csrf, token, next: '/console/runs' }).toString(),
        }),
      );
      await answer.arrayBuffer();
      return answer.status;
    },
    has: (name: string) => jar.has(name),
  };
}

describe('the admin token sign-in is throttled without strangers locking out the right token', () => {
  it('does not count ?once= links that are not valid: ten of them lock nobody out', async () => {
    const { url } = await start();
    const stranger = browser(url);
    for (let i = 0; i < 10; i++) {
      const answer = await stranger.get(`/console/sign-in?once=guess-${i}`);
      expect(answer.status).toBe(401);
      expect(await answer.text()).toContain('That sign-in link is not valid');
    }
    expect(await browser(url).signIn(TOKEN)).toBe(303);
  });

  it('lets a browser that signed in before sign in with the right token while strangers’ guesses lock the address', async () => {
    const { url } = await start();
    const admin = browser(url);
    expect(await admin.signIn(TOKEN)).toBe(303);
    expect(admin.has('agent_bridge_console_known')).toBe(true);

    const stranger = browser(url);
    const guesses = [];
    for (let i = 0; i < 6; i++) guesses.push(await stranger.signIn(`wrong-token-${i}`));
    expect(guesses).toEqual([401, 401, 401, 401, 401, 429]);
    // A new browser at the same address waits: that is what the throttle is for.
    expect(await browser(url).signIn(TOKEN)).toBe(429);
    // The admin's browser does not.
    expect(await admin.signIn(TOKEN)).toBe(303);
  });

  it('throttles guesses from a known browser on their own, and they do not lock the address', async () => {
    const { url } = await start();
    const known = browser(url);
    expect(await known.signIn(TOKEN)).toBe(303);
    const attempts = [];
    for (let i = 0; i < 6; i++) attempts.push(await known.signIn(`wrong-token-${i}`));
    expect(attempts).toEqual([401, 401, 401, 401, 401, 429]);
    expect(await known.signIn(TOKEN)).toBe(429);
    expect(await browser(url).signIn(TOKEN)).toBe(303);
  });

  it('does not take a known-browser mark it did not sign', async () => {
    const { url } = await start();
    const stranger = browser(url);
    for (let i = 0; i < 5; i++) await stranger.signIn(`wrong-token-${i}`);
    const form = await browser(url).get('/console/sign-in');
    expect(form.status).toBe(200);
    // A mark with the right shape but not signed by the service: the address's lock applies.
    const guess = await fetch(`${url}/console/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        cookie: [...cookiesOf(form), `agent_bridge_console_known=abc.${Date.now() + 60_000}.not-our-mac`].join('; '),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ csrf: csrfIn(await form.text()), token: TOKEN }).toString(),
    });
    expect(guess.status).toBe(429);
  });
});
