import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import type { RunningService } from '../../src/main.js';
import { CapturingLogger } from '../core/capturing-logger.js';
import { consoleHttp, cookiesOf, csrfIn, signInWithToken } from '../helpers/console-http.js';
import { startBridge } from '../helpers/start-bridge.js';
import { SURFACE_MODULES } from '../../src/surface-list.js';
import { aRun } from '../store/helpers.js';

/*
 * The console's doors over plain HTTP: no session → the sign-in page; a state-changing POST without
 * the session's CSRF token → 403 and nothing changed; wrong tokens → rate-limited; no secret rendered.
 */

const TOKEN = 'console-admin-token-0123456789abcdef';
const API_KEY = 'console-http-run-api-key';
let emulator: RunningEmulator;
let service: RunningService;
const logger = new CapturingLogger();

beforeAll(async () => {
  emulator = await startEmulator({ apiKey: API_KEY, port: 0, manual: true });
  ({ service } = await startBridge({ agentApi: { baseUrl: emulator.baseUrl, apiKey: API_KEY }, env: { CONSOLE_ADMIN_TOKEN: TOKEN }, logger }));
});
afterAll(async () => {
  await service.stop();
  await emulator.close();
});

const http = consoleHttp(() => service.url);
const { get, post } = http;

/** Signs in through the form as a browser would; returns the session cookie and a page's CSRF token. */
async function signIn(): Promise<{ cookie: string; csrf: string }> {
  const session = await signInWithToken(http, TOKEN, '/console/runs');
  const runs = await get('/console/runs', session);
  expect(runs.status).toBe(200);
  return { cookie: session, csrf: csrfIn(await runs.text()) };
}

describe('the usage page', () => {
  it('says there is no usage yet instead of a chart and tables of zeros, then lists only the days that had runs', async () => {
    const { cookie } = await signIn();
    const empty = await (await get('/console/usage', cookie)).text();
    expect(empty).toContain('No usage yet in the last 30d');
    expect(empty).not.toContain('<svg');
    expect(empty).not.toContain('data-testid="usage-days"');

    const day = 86_400_000;
    const startedAt = Date.now() - 2 * day;
    await service.store.trackedRuns.insert(aRun('run-with-usage', { source: 'console', routeName: 'console', state: 'SUCCEEDED' }), startedAt);
    await service.store.trackedRuns.recordUsage([{ runId: 'run-with-usage', usage: { inferenceCost: 0.5, computeCost: 0.25 } }], startedAt + 1);
    const used = await (await get('/console/usage', cookie)).text();
    expect(used).not.toContain('No usage yet');
    // The chart keeps every day of the window (no gaps); the day table only the day that had a run.
    expect(used.match(/<rect /g)).toHaveLength(31);
    const days = /data-testid="usage-days">([\s\S]*?)<\/table>/.exec(used)?.[1] ?? '';
    expect([...days.matchAll(/<tr>\s*<td>([\d-]+)<\/td>/g)].map((match) => match[1])).toEqual([new Date(startedAt).toISOString().slice(0, 10)]);
  });
});

// Lists of surfaces written by hand missed the ones added later (GitHub had no health row): both pages read the registered list.
describe('the pages that list surfaces list every registered one', () => {
  it('the runs page offers each surface in its source filter, by its title', async () => {
    const { cookie } = await signIn();
    const page = await (await get('/console/runs', cookie)).text();
    const filter = /<select name="source">([\s\S]*?)<\/select>/.exec(page)?.[1] ?? '';
    const offered = [...filter.matchAll(/<option value="([^"]*)"\s*>([^<]*)<\/option>/g)].map((match) => [match[1], match[2]]);
    expect(offered).toEqual(expect.arrayContaining(SURFACE_MODULES.map((surface) => [surface.name, surface.title])));
    const chosen = await (await get('/console/runs?source=github', cookie)).text();
    expect(chosen).toMatch(/<option value="github"\s+selected>GitHub<\/option>/);
  });

  it('the health page has a row for each surface, on or off', async () => {
    const { cookie } = await signIn();
    const page = await (await get('/console/health', cookie)).text();
    const table = /data-testid="integrations">([\s\S]*?)<\/table>/.exec(page)?.[1] ?? '';
    const rows = [...table.matchAll(/<tr>\s*<td>([^<]*)<\/td>\s*<td class="[^"]*">(on|off)<\/td>/g)].map((match) => [match[1], match[2]]);
    // This service configures no surface: every one is off, and says so.
    expect(rows).toEqual(expect.arrayContaining(SURFACE_MODULES.map((surface) => [surface.title, 'off'])));
  });
});

describe('console access', () => {
  it.each(['/console', '/console/runs', '/console/run?id=x', '/console/attention', '/console/schedules', '/console/health', '/console/audit'])(
    'GET %s without a session leads to the sign-in page',
    async (path) => {
      let response = await get(path);
      if (path === '/console') response = await get(response.headers.get('location') ?? '');
      expect(response.status).toBe(303);
      expect(response.headers.get('location')).toMatch(/^\/console\/sign-in\?next=/);
    },
  );

  it('serves the sign-in page with a strict CSP, and a session cookie that is HttpOnly and SameSite', async () => {
    const page = await get('/console/sign-in');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('content-security-policy')).not.toContain('unsafe-inline');
    const html = await page.text();
    expect(html).not.toContain(TOKEN);
    expect(html).not.toMatch(/<script>|<script [^>]*>[^<]/);
    const form = await get('/console/sign-in');
    const answer = await post('/console/sign-in', { csrf: csrfIn(await form.text()), token: TOKEN }, cookiesOf(form).join('; '));
    const line = answer.headers.getSetCookie().find((value) => value.startsWith('agent_bridge_console='));
    expect(line).toMatch(/HttpOnly/);
    expect(line).toMatch(/SameSite=Lax/);
    expect(line).not.toMatch(/Secure/);
  });

  it('refuses a POST without a session before reading it, and one without the CSRF token: 403, nothing changed', async () => {
    await service.store.outbox.add([{ key: 'k1', destination: 'log:x', kind: 'notice', payload: { kind: 'notice', text: 'x' } }], 0);
    const row = await service.store.outbox.claimNext('test', Date.now(), 60_000);
    await service.store.outbox.markFailed(row!.id, 'test', 'channel_not_found', Date.now());
    const anonymous = await post('/console/delivery/retry', { id: String(row!.id) });
    expect(anonymous.status).toBe(403);
    const { cookie, csrf } = await signIn();
    for (const token of [undefined, 'wrong', `${csrf}x`]) {
      const answer = await post('/console/delivery/retry', { id: String(row!.id), ...(token !== undefined && { csrf: token }) }, cookie);
      expect(answer.status).toBe(403);
      expect((await service.store.outbox.getByKey('k1'))?.state).toBe('failed');
    }
    const good = await post('/console/delivery/dismiss', { id: String(row!.id), csrf }, cookie);
    expect(good.status).toBe(303);
    expect(await service.store.operator.failedDeliveries(10)).toEqual([]);
    // Only the dismissal that changed something is in the audit trail, once.
    const entries = await service.store.audit.list({ limit: 10 });
    expect(entries.map((entry) => [entry.act, entry.personId, entry.surface, entry.detail])).toEqual([
      ['console.dismiss', 'console-admin', 'console', { delivery: row!.id }],
    ]);
    await post('/console/delivery/dismiss', { id: String(row!.id), csrf }, cookie);
    expect(await service.store.audit.list({ limit: 10 })).toHaveLength(1);
  });

  it('pages the audit trail 50 entries at a time, newest first, and filters it by act and person', async () => {
    const { cookie } = await signIn();
    const base = Date.parse('2026-01-01T00:00:00Z');
    for (let i = 0; i < 60; i++) {
      await service.store.audit.record({
        at: base + i * 1_000,
        act: i % 2 ? 'key.connected' : 'key.removed',
        personId: `U0PAGE${i % 3}`,
        surface: 'slack',
        onceKey: `page-${i}`,
      });
    }
    const rowsOf = (page: string) => [...page.matchAll(/<tr data-act="([^"]+)">/g)].map((match) => match[1]);
    const first = await (await get('/console/audit', cookie)).text();
    expect(rowsOf(first)).toHaveLength(50);
    const next = /<a href="([^"]+)" rel="next">/.exec(first)?.[1]?.replaceAll('&amp;', '&') ?? '';
    expect(next).toMatch(/^\/console\/audit\?after=\d+%7E\d+$/);
    const second = await (await get(next, cookie)).text();
    // The other 10 of the 60, and the dismissal the test above made (recorded at today's time: the newest).
    expect(rowsOf(first).length + rowsOf(second).length).toBe(61);
    expect(second).not.toContain('rel="next"');
    const filtered = await (await get('/console/audit?act=key.connected&person=U0PAGE1', cookie)).text();
    // i odd and i % 3 = 1: 1, 7, 13, … 55 — ten entries.
    expect(rowsOf(filtered)).toEqual(Array(10).fill('key.connected'));
    // An act that is not one is no filter; a person nobody is finds nothing.
    expect(rowsOf(await (await get('/console/audit?act=%3Cscript%3E', cookie)).text())).toHaveLength(50);
    expect(await (await get('/console/audit?person=%3Cb%3Enobody', cookie)).text()).toContain('No entries match.');
  });

  it('answers bad input with a clear 4xx and changes nothing', async () => {
    const { cookie, csrf } = await signIn();
    expect((await post('/console/delivery/retry', { id: 'abc', csrf }, cookie)).status).toBe(400);
    expect((await post('/console/run/cancel', { id: 'no-such-run', csrf }, cookie)).status).toBe(404);
    expect((await post('/console/schedule/pause', { name: 'nope', csrf }, cookie)).status).toBe(404);
    expect((await get('/console/run?id=no-such-run', cookie)).status).toBe(404);
    expect((await get('/console/runs?after=garbage&state=%3Cscript%3E', cookie)).status).toBe(200);
  });

  it('rate-limits wrong tokens per address: 401 five times, then 429 with Retry-After, even for the right token', async () => {
    const attempt = async (token: string) => {
      const form = await get('/console/sign-in');
      return post('/console/sign-in', { csrf: csrfIn(await form.text()), token }, cookiesOf(form).join('; '));
    };
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await attempt(`wrong-token-${i}`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    const blocked = await attempt(TOKEN);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(blocked.headers.getSetCookie().some((line) => line.startsWith('agent_bridge_console='))).toBe(false);
    expect(logger.at('error')).toEqual([]);
    expect(JSON.stringify(logger.lines)).not.toContain(TOKEN);
  });
});

describe('console with the built-in emulator and no token', () => {
  it('prints a one-time sign-in link that signs in once', async () => {
    const { loadConfig } = await import('../../src/config/index.js');
    const { startService } = await import('../../src/main.js');
    const { tempDir } = await import('../helpers/spawn-cli.js');
    const cwd = tempDir();
    const log = new CapturingLogger();
    const emulated = await startService({ config: loadConfig({ cwd, env: { DATABASE_PATH: ':memory:', PORT: '0', HOST: '127.0.0.1' } }), logger: log });
    try {
      // Nothing to keep its runs beside: the start says they are gone when it stops.
      expect(log.lines.find((entry) => entry.msg?.includes('BUILT-IN RUN-API EMULATOR'))?.msg).toContain(
        'Its runs are kept in memory only (the database is not a SQLite file): they and their session pages are gone when the service stops.',
      );
      const line = log.lines.map((entry) => entry.msg ?? '').find((message) => message.startsWith('web console: sign in once with '));
      const link = line?.slice('web console: sign in once with '.length) ?? '';
      expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/console\/sign-in\?once=[\w-]{20,}$/);
      const first = await fetch(link, { redirect: 'manual' });
      expect(first.status).toBe(303);
      const session = cookiesOf(first).find((value) => value.startsWith('agent_bridge_console='));
      expect((await fetch(`${emulated.url}/console/health`, { headers: { cookie: session ?? '' } })).status).toBe(200);
      expect((await fetch(link, { redirect: 'manual' })).status).toBe(401);
    } finally {
      await emulated.stop();
    }
  });
});

describe('console off: a real run API, no CONSOLE_ADMIN_TOKEN, no Sign in with Slack', () => {
  it('says at start, in one line, that the console is off, why, and how to turn it on; /console says the same', async () => {
    const log = new CapturingLogger();
    const { service: off } = await startBridge({ agentApi: { baseUrl: emulator.baseUrl, apiKey: API_KEY }, logger: log });
    try {
      const lines = log.lines.map((entry) => entry.msg ?? '').filter((message) => message.startsWith('web console'));
      expect(lines).toEqual([
        expect.stringMatching(/^web console is off: AGENT_API_BASE_URL names a real run API .*set CONSOLE_ADMIN_TOKEN \(at least 32 characters\)/),
      ]);
      const answer = await fetch(`${off.url}/console`);
      expect(answer.status).toBe(404);
      expect(((await answer.json()) as { message: string }).message).toContain(lines[0]?.slice('web console is off: '.length));
    } finally {
      await off.stop();
    }
  });
});
