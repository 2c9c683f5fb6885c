import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentApiEndpoint } from '../../src/compose/run-api-endpoint.js';
import { runsForKey } from '../../src/compose/people.js';
import { loadConfig } from '../../src/config/index.js';
import { startService, type RunningService } from '../../src/main.js';
import { checkKey } from '../../src/people/key-check.js';
import { CapturingLogger } from '../core/capturing-logger.js';
import { consoleHttp, csrfIn, signInWithToken } from '../helpers/console-http.js';

/**
 * `npm start` with no configuration runs the built-in emulator: a person trying personal keys there
 * gets their key accepted, as a real run API would accept a real key — while a configured
 * run API is still the one that decides.
 */
let cwd: string;
let endpoint: Awaited<ReturnType<typeof agentApiEndpoint>>;

beforeAll(async () => {
  cwd = mkdtempSync(join(tmpdir(), 'agent-bridge-builtin-keys-'));
  const config = loadConfig({ cwd, env: { DATABASE_PATH: ':memory:' } });
  endpoint = await agentApiEndpoint(config, new CapturingLogger());
});
afterAll(async () => {
  await endpoint.emulator?.close();
  rmSync(cwd, { recursive: true, force: true });
});

describe('the built-in emulator and personal keys', () => {
  it('is the endpoint when no run API is configured', () => {
    expect(endpoint.emulator).toBeDefined();
    expect(endpoint.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
  });

  it('accepts a personal key the console checks before storing it, and answers calls made with it', async () => {
    const personal = 'wk_personal_builtin_trial_9Z9Z';
    expect(await checkKey(runsForKey(endpoint.baseUrl), personal)).toBe('accepted');
    const client = runsForKey(endpoint.baseUrl)(personal);
    expect((await client.runs.listRuns({ limit: 1 })).runs).toEqual([]);
    await client.close();
  });
});

/*
 * The same with the service itself, over real HTTP — the console's Connect form on
 * `npm start` with no run API configured. It said "the run API could not be asked" for every key: the
 * console checked keys only against AGENT_API_BASE_URL, which is unset there.
 */
describe('the console on the built-in emulator', () => {
  const TOKEN = 'builtin-console-admin-token-0123456789ab';
  const PERSON = 'U0TRYING01';
  const KEY = 'wk_personal_builtin_console_trial_7Q7q';
  let service: RunningService;
  let home: string;

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'agent-bridge-builtin-console-'));
    const env = {
      DATABASE_PATH: join(home, 'bridge.db'),
      PORT: '0',
      HOST: '127.0.0.1',
      CONSOLE_ADMIN_TOKEN: TOKEN,
      AGENT_BRIDGE_SECRET: 'builtin-console-secret-'.padEnd(40, 's'),
    };
    service = await startService({ config: loadConfig({ cwd: home, env }), logger: new CapturingLogger() });
  });
  afterAll(async () => {
    await service?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  const http = consoleHttp(() => service.url);

  it('connects a personal key the emulator accepts, as docs/people.md says it does', async () => {
    expect(service.emulated).toBe(true);
    const cookie = await signInWithToken(http, TOKEN, '/console/keys');
    const keys = await fetch(`${service.url}/console/keys`, { headers: { cookie } });
    expect(keys.status).toBe(200);

    const connected = await http.post('/console/keys/connect', { csrf: csrfIn(await keys.text()), person: PERSON, key: KEY }, cookie);
    expect(connected.status).toBe(303);
    expect(new URL(connected.headers.get('location') ?? '', service.url).searchParams.get('flash')).toBe('key-connected');
    expect(await service.store.personKeys.get(PERSON)).toMatchObject({ personId: PERSON, lastFour: '7Q7q' });
  });
});
