/**
 * The console's key page over real HTTP on the real service: a key is checked with the run
 * API (here the emulator) before it is stored; bad input and refused keys store nothing; the page,
 * the logs and the flash messages never carry the key, only its last 4 characters.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import type { RunningService } from '../../src/main.js';
import { CapturingLogger } from '../core/capturing-logger.js';
import { consoleHttp, csrfIn, signInWithToken } from '../helpers/console-http.js';
import { startBridge } from '../helpers/start-bridge.js';

const TOKEN = 'console-admin-token-0123456789abcdef';
// The emulator accepts one key: it stands in for a person's valid key; any other key is refused (401).
const VALID_KEY = 'wk_personal_valid_0123456789abcdefK9x2';
const REFUSED_KEY = 'wk_personal_revoked_fedcba9876543210R3v0';
const PERSON = 'U0PERSON01';
let emulator: RunningEmulator;
let service: RunningService;
const logger = new CapturingLogger();

beforeAll(async () => {
  emulator = await startEmulator({ apiKey: VALID_KEY, port: 0, manual: true });
  ({ service } = await startBridge({
    agentApi: { baseUrl: emulator.baseUrl, apiKey: VALID_KEY },
    env: { CONSOLE_ADMIN_TOKEN: TOKEN, AGENT_BRIDGE_SECRET: 'bridge-secret-'.padEnd(40, 's') },
    logger,
  }));
});
afterAll(async () => {
  await service.stop();
  await emulator.close();
});

const http = consoleHttp(() => service.url);
const { get, post } = http;

let session: { cookie: string; csrf: string };
const pages: string[] = [];

async function keysPage(path = '/console/keys'): Promise<string> {
  const response = await get(path, session.cookie);
  expect(response.status).toBe(200);
  const text = await response.text();
  pages.push(text);
  return text;
}

/** Posts the connect form; returns the flash code it redirects to. */
async function connect(person: string, key: string): Promise<string> {
  const answer = await post('/console/keys/connect', { csrf: session.csrf, person, key }, session.cookie);
  expect(answer.status).toBe(303);
  const location = answer.headers.get('location') ?? '';
  pages.push(await keysPage(location));
  return new URL(location, service.url).searchParams.get('flash') ?? '';
}

beforeAll(async () => {
  session = { cookie: await signInWithToken(http, TOKEN, '/console/keys'), csrf: '' };
  session.csrf = csrfIn(await keysPage());
});

describe('the console key page', () => {
  it('says no key is connected and links itself in the navigation', async () => {
    const page = await keysPage();
    expect(page).toContain('No key is connected.');
    expect(page).toMatch(/href="\/console\/keys"\s+aria-current="page"/);
    expect(page.replace(/\s+/g, ' ')).toContain('here an admin connects one for a person by their person id: a Slack user ID such as U0123ABCD');
  });

  it.each([
    ['not a person id', 'alice', VALID_KEY, 'key-bad-person'],
    ['a Slack user ID in lower case', PERSON.toLowerCase(), VALID_KEY, 'key-bad-person'],
    ['a person of a surface that is not registered', `myspace:${PERSON}`, VALID_KEY, 'key-bad-person'],
    ['a key with a space', PERSON, `Bearer ${VALID_KEY}`, 'key-bad-key'],
    ['an empty key', PERSON, '', 'key-bad-key'],
    ['a key the run API refuses', PERSON, REFUSED_KEY, 'key-refused'],
  ])('refuses %s and stores nothing', async (_what, person, key, flash) => {
    expect(await connect(person, key)).toBe(flash);
    expect(await service.store.personKeys.count()).toBe(0);
  });

  it('refuses a form without the CSRF token (403), storing nothing', async () => {
    const answer = await post('/console/keys/connect', { person: PERSON, key: VALID_KEY }, session.cookie);
    expect(answer.status).toBe(403);
    expect(await service.store.personKeys.count()).toBe(0);
  });

  it('connects a key the run API accepts, sealed, and shows only its last 4 characters', async () => {
    expect(await connect(PERSON, VALID_KEY)).toBe('key-connected');
    const stored = await service.store.personKeys.get(PERSON);
    expect(stored).toMatchObject({ personId: PERSON, lastFour: 'K9x2', lastUsedAt: null });
    expect(stored?.sealed).not.toContain(VALID_KEY);
    const page = await keysPage();
    expect(page).toContain('<code>…K9x2</code>');
    expect(page).toContain(`<code>${PERSON}</code>`);
  });

  it('says what a person id looks like when one is refused', async () => {
    expect(await keysPage('/console/keys?flash=key-bad-person')).toContain(
      'Not connected: that is not a person id (a Slack user ID such as U0123ABCD (profile → ⋮ → Copy member ID), or a Teams user’s Entra object ID written teams:&lt;id&gt;, such as teams:6e1c2f5a-0b1d-4c8e-9f3a-2d7b8c9e0f11 (Microsoft Entra admin center → Users → the person → Object ID)).',
    );
  });

  it('removes a key; removing again finds none', async () => {
    const remove = () => post('/console/keys/remove', { csrf: session.csrf, person: PERSON }, session.cookie);
    expect((await remove()).headers.get('location')).toBe('/console/keys?flash=key-removed');
    expect(await service.store.personKeys.get(PERSON)).toBeUndefined();
    expect((await remove()).headers.get('location')).toBe('/console/keys?flash=key-absent');
  });

  it('leaves one audit entry per key connected and removed, by the admin, naming whose key and never the key', async () => {
    const entries = await service.store.audit.list({ limit: 10 });
    expect(entries.map((entry) => [entry.act, entry.personId, entry.surface, entry.detail]).reverse()).toEqual([
      ['key.connected', 'console-admin', 'console', { person: PERSON }],
      ['key.removed', 'console-admin', 'console', { person: PERSON }],
    ]);
    expect(JSON.stringify(entries)).not.toContain(VALID_KEY.slice(0, -4));
  });

  it('never rendered or logged a key', () => {
    expect(pages.length).toBeGreaterThan(5);
    expect(logger.lines.some((line) => line.msg === 'personal API key connected in the console')).toBe(true);
    const seen = pages.join('\n') + JSON.stringify(logger.lines);
    for (const key of [VALID_KEY, REFUSED_KEY]) expect(seen).not.toContain(key.slice(0, -4));
  });

  it.each([[`slack:${PERSON}`], [`SLACK:${PERSON}`], [` ${PERSON} `]])('stores a key connected for %j under the canonical person id', async (typed) => {
    expect(await connect(typed, VALID_KEY)).toBe('key-connected');
    expect((await service.store.personKeys.get(PERSON))?.personId).toBe(PERSON);
    expect(await service.store.personKeys.count()).toBe(1);
  });
});
