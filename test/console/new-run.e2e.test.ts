/**
 * New run: a signed-in person starts a run from the console, over real HTTP on the real service (the
 * emulator as the run API, Sign in with Slack against a fake OpenID provider). The request goes
 * through the intake like any other — one trigger however often the form is sent, source `console`,
 * the chosen route, the person's own key — and the tracker follows the run it becomes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creatorUidFor, startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import type { RunningService } from '../../src/main.js';
import { KeyBox } from '../../src/people/key-box.js';
import { PersonKeys } from '../../src/people/person-keys.js';
import { CapturingLogger } from '../core/capturing-logger.js';
import { freePort, startFakeOidcProvider, type FakeOidcProvider, type ProviderUser } from '../fakes/oidc-provider.js';
import { consoleHttp, csrfIn, signInWithSlack, signInWithToken } from '../helpers/console-http.js';
import { startBridge } from '../helpers/start-bridge.js';
import { until } from '../helpers/until.js';

const TOKEN = 'console-admin-token-new-run-0123456789ab';
const SERVICE_KEY = 'new-run-service-key-0123456789';
const ADA_KEY = 'wk_personal_ada_new_run_0123456789Qx7z';
const BRIDGE_SECRET = 'bridge-secret-'.padEnd(48, 'n');
const CLIENT_ID = '1234567890.1111111111';
const CLIENT_SECRET = 'slack-client-secret-new-run-0123456789';
const ADA: ProviderUser = { userId: 'U0ADA0001', teamId: 'T0TEAM001', name: 'Ada Lovelace' };
const BOB: ProviderUser = { userId: 'U0BOB0002', teamId: 'T0TEAM001', name: 'Bob' };

let provider: FakeOidcProvider;
let emulator: RunningEmulator;
let service: RunningService;
const logger = new CapturingLogger();

beforeAll(async () => {
  provider = await startFakeOidcProvider({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
  // Any key is accepted, each its own creator: Ada's personal key is told apart from the service's.
  emulator = await startEmulator({ apiKey: SERVICE_KEY, port: 0, manual: true, acceptAnyKey: true });
  const port = await freePort();
  ({ service } = await startBridge({
    agentApi: { baseUrl: emulator.baseUrl, apiKey: SERVICE_KEY },
    env: {
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      CONSOLE_ADMIN_TOKEN: TOKEN,
      SLACK_CLIENT_ID: CLIENT_ID,
      SLACK_CLIENT_SECRET: CLIENT_SECRET,
      SLACK_OIDC_ISSUER: provider.issuer,
      AGENT_BRIDGE_SECRET: BRIDGE_SECRET,
    },
    yaml: [
      'tracker:',
      '  interval: 1s',
      'people:',
      '  attribution: personal_if_connected',
      'linear:',
      '  labels:',
      '    agent: { config: { name: web, environment_id: env_web } }',
      '    tight: { config: { name: tight }, limits: { concurrent: 1 } }',
      '',
    ].join('\n'),
    logger,
  }));
  await new PersonKeys(service.store.personKeys, new KeyBox(BRIDGE_SECRET)).connect(ADA.userId, ADA_KEY, Date.now());
}, 30_000);
afterAll(async () => {
  await service?.stop();
  await emulator?.close();
  await provider?.close();
});

const http = consoleHttp(() => service.url);
const { get, post } = http;

const triggersStored = async () => Object.values(await service.store.triggers.countByState()).reduce((sum, count) => sum + count, 0);

/** The New run form's hidden fields for `cookie`'s session: its CSRF token and a fresh request id. */
async function openForm(cookie: string): Promise<{ csrf: string; request: string; page: string }> {
  const response = await get('/console/runs/new', cookie);
  expect(response.status).toBe(200);
  const page = await response.text();
  return { csrf: csrfIn(page), request: /name="request" value="([0-9a-f]{24})"/.exec(page)?.[1] ?? '', page };
}

/** Follows a submitted request's page until it leads to its run; answers the run id. */
async function runOf(location: string, cookie: string): Promise<string> {
  return until(async () => {
    const answer = await get(location, cookie);
    const next = answer.headers.get('location') ?? '';
    return answer.status === 303 && next.startsWith('/console/run?id=') ? decodeURIComponent(next.slice('/console/run?id='.length)) : undefined;
  }, 'the request to become a run');
}

describe('New run', () => {
  it('the runs page offers New run and the console as a source, and says how to start a first run while there is none', async () => {
    const cookie = await signInWithToken(http, TOKEN, '/console/runs');
    const page = await (await get('/console/runs', cookie)).text();
    expect(page).toContain('href="/console/runs/new"');
    expect(page).toContain('<option value="console"');
    expect(page).toMatch(/data-testid="no-runs">[\s\S]*No runs match\.[\s\S]*New run[\s\S]*npx agent-bridge run/);
  });

  it('offers the defaults and each named route, and never auto-refreshes the form', async () => {
    const cookie = await signInWithToken(http, TOKEN, '/console/runs');
    const { page } = await openForm(cookie);
    expect([...page.matchAll(/<option value="([^"]*)"/g)].map((match) => match[1])).toEqual(['', 'web', 'tight']);
    expect(page).toMatch(/web — linear\.labels\.agent \(environment env_web\)/);
    expect(page).not.toContain('data-refresh');
  });

  it('the admin starts a run on a named route: one trigger however often the form is sent, tracked with source console, followed to its page', async () => {
    const cookie = await signInWithToken(http, TOKEN, '/console/runs');
    const { csrf, request } = await openForm(cookie);
    const before = await triggersStored();
    const form = { csrf, request, prompt: 'Tidy the README\nand fix the links', route: 'web', title: '' };
    const first = await post('/console/runs/new', form, cookie);
    const second = await post('/console/runs/new', form, cookie);
    expect(first.status).toBe(303);
    const location = first.headers.get('location') ?? '';
    expect(location).toMatch(/^\/console\/runs\/starting\?request=[0-9a-f]{24}$/);
    expect(second.headers.get('location')).toBe(location);
    expect(await triggersStored()).toBe(before + 1);

    const runId = await runOf(location, cookie);
    const id = location.split('=')[1] ?? '';
    const run = await service.store.trackedRuns.get(runId);
    expect(run).toMatchObject({
      source: 'console',
      anchor: `log:console:${id}`,
      destinations: [`log:console:${id}`],
      routeName: 'web',
      title: 'Tidy the README',
    });
    expect(run?.personalKeyOwner).toBeUndefined();
    const created = emulator.engine.get(runId);
    expect(created?.agent_config).toMatchObject({ name: 'web', environment_id: 'env_web' });
    expect(created?.prompt).toMatch(/^Tidy the README\nand fix the links\n\n\(agent-bridge ref [0-9a-f]{10}\)$/);
    expect(emulator.engine.creatorOf(runId)?.uid).toBe(creatorUidFor(SERVICE_KEY));

    // Tracked like any other run: its end is observed, announced at its log place, and listed under its source.
    emulator.engine.drive(runId, 'SUCCEEDED');
    await until(async () => (await service.store.trackedRuns.get(runId))?.state === 'SUCCEEDED', 'the tracker to see the end');
    const listed = await (await get('/console/runs?source=console', cookie)).text();
    expect(listed).toContain(`data-run="${runId}"`);
    expect((await get(`/console/run?id=${runId}`, cookie)).status).toBe(200);
    await until(
      () => logger.lines.some(({ fields }) => fields['destination'] === `log:console:${id}` && fields['state'] === 'SUCCEEDED'),
      'the end in the log',
    );
    const [entry] = (await service.store.audit.list({ limit: 20 })).filter((candidate) => candidate.runId === runId);
    expect(entry).toMatchObject({ act: 'run.started', personId: 'console-admin', surface: 'console', detail: { route: 'web', key: 'service' } });
  });

  it('answers bad input with a clear 400 and the form again, storing nothing', async () => {
    const cookie = await signInWithToken(http, TOKEN, '/console/runs');
    const { csrf, request } = await openForm(cookie);
    const before = await triggersStored();
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ prompt: '   ', route: '' }, /Write a prompt/],
      [{ prompt: 'x'.repeat(16_001), route: '' }, /16001 characters long; at most 16000/],
      [{ prompt: 'hello', route: 'nope' }, /No route named “nope” is configured/],
      [{ prompt: 'hello', route: '', request: 'not-one-of-ours' }, /out of date/],
    ];
    for (const [fields, problem] of cases) {
      const answer = await post('/console/runs/new', { csrf, request, title: '', ...fields }, cookie);
      expect(answer.status).toBe(400);
      const page = await answer.text();
      expect(page).toMatch(problem);
      // What was typed is kept (escaped), so the person corrects it instead of starting over.
      if (fields['prompt'] === 'hello') expect(page).toContain('>hello</textarea>');
    }
    expect((await post('/console/runs/new', { request, prompt: 'hello', route: '' }, cookie)).status).toBe(403);
    expect((await post('/console/runs/new', { csrf, request, prompt: 'hello', route: '' })).status).toBe(403);
    expect(await triggersStored()).toBe(before);
  });

  it('a request that may not start says why on its page, with what it owes people, and leads to no run', async () => {
    const cookie = await signInWithToken(http, TOKEN, '/console/runs');
    const start = async (prompt: string) => {
      const { csrf, request } = await openForm(cookie);
      return (await post('/console/runs/new', { csrf, request, prompt, route: 'tight', title: '' }, cookie)).headers.get('location') ?? '';
    };
    // The emulator is driven by hand: the first run stays QUEUED and holds the route's one place.
    await runOf(await start('First on the tight route'), cookie);
    const refused = await start('Second on the tight route');
    const page = await until(async () => {
      const answer = await get(refused, cookie);
      const text = await answer.text();
      return answer.status === 200 && text.includes('Not started') ? text : undefined;
    }, 'the refusal');
    expect(page).toContain('A limit was reached, so no run was started.');
    expect(page).toMatch(/data-testid="request-messages">[\s\S]*the route &quot;tight&quot; has reached its limit of 1 run at once/);
    expect(page).not.toContain('http-equiv="refresh"');
  });

  it('a person signed in with Slack starts as themselves, under their own key; another person cannot see the request', async () => {
    const ada = await signInWithSlack(http, provider, ADA);
    const { request } = await openForm(ada.cookie);
    const answer = await post('/console/runs/new', { csrf: ada.csrf, request, prompt: 'Bump the dependencies', route: '', title: 'Deps' }, ada.cookie);
    const location = answer.headers.get('location') ?? '';
    const bob = await signInWithSlack(http, provider, BOB);
    expect((await get(location, bob.cookie)).status).toBe(404);

    const runId = await runOf(location, ada.cookie);
    expect(await service.store.trackedRuns.get(runId)).toMatchObject({ source: 'console', personalKeyOwner: ADA.userId, routeName: 'console', title: 'Deps' });
    expect(emulator.engine.creatorOf(runId)).toMatchObject({ type: 'user', uid: creatorUidFor(ADA_KEY) });
    const trigger = await service.store.triggers.getByKey(`console:${location.split('=')[1] ?? ''}`);
    expect(trigger?.payload.requester).toEqual({ platform: 'slack', id: ADA.userId, name: ADA.name });
    // Hers to see; not Bob's.
    expect(await (await get('/console/runs', ada.cookie)).text()).toContain(`data-run="${runId}"`);
    expect(await (await get('/console/runs', bob.cookie)).text()).not.toContain(`data-run="${runId}"`);
  });
});
