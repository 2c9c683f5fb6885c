import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import type { RunningService } from '../../src/main.js';
import { loadConfig } from '../../src/config/index.js';
import { secretValues } from '../../src/config/secret-values.js';
import { CapturingLogger } from '../core/capturing-logger.js';
import { quiet } from '../helpers/deliveries.js';
import { tempDir } from '../helpers/spawn-cli.js';
import { startBridge } from '../helpers/start-bridge.js';
import { until } from '../helpers/until.js';
import { pagerDeliveries } from './made-up-module.js';

/*
 * A surface is its folder, its module and a line in the list: a made-up surface (`made-up-module.ts`,
 * one file) added to the list is served — its webhook on the one HTTP server behind the one signed
 * edge, its requests started as runs, its notifier told each state — with no other file of the
 * service changed. Its route while it is off says how to turn it on.
 */
vi.mock('../../src/surface-list.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/surface-list.js')>();
  const { pagerModule } = await import('./made-up-module.js');
  return { ...original, SURFACE_MODULES: [...original.SURFACE_MODULES, pagerModule] };
});

const API_KEY = 'made-up-surface-run-api-key';
const TOKEN = 'pager-token-made-up-0123456789';

let emulator: RunningEmulator;
let service: RunningService;
let off: RunningService;
const logger = new CapturingLogger();

beforeAll(async () => {
  emulator = await startEmulator({ apiKey: API_KEY, port: 0, manual: true });
  const agentApi = { baseUrl: emulator.baseUrl, apiKey: API_KEY };
  ({ service } = await startBridge({ agentApi, env: { PAGER_TOKEN: TOKEN }, yaml: 'tracker:\n  interval: 1s\n', logger }));
  ({ service: off } = await startBridge({ agentApi }));
});
afterAll(async () => {
  await service?.stop();
  await off?.stop();
  await emulator?.close();
});

const page = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${service.url}/pager/hook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-pager-token': TOKEN, ...headers },
    body: JSON.stringify(body),
  });

describe('a surface added to the list alone', () => {
  it('is served: its webhook starts a run, its notifier hears it received and ended, and a redelivery starts nothing', async () => {
    const answer = await page({ page: 'db-down', text: 'The primary database is down' }, { 'x-pager-delivery': 'delivery-1' });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ ok: true, outcome: 'stored' });
    const run = await until(() => emulator.engine.list({}).runs.find((candidate) => candidate.prompt?.includes('The primary database is down')), 'the run');
    expect((await page({ page: 'db-down', text: 'The primary database is down' }, { 'x-pager-delivery': 'delivery-1' })).status).toBe(200);

    emulator.engine.drive(run.run_id, 'SUCCEEDED');
    await until(() => pagerDeliveries.some((delivery) => delivery.message.kind === 'announce'), 'the end told on the page');
    await quiet(service);
    expect(pagerDeliveries.every((delivery) => delivery.destination === 'pager:db-down')).toBe(true);
    expect(pagerDeliveries.map((delivery) => delivery.message.kind)).toEqual(expect.arrayContaining(['received', 'announce']));
    expect(emulator.engine.list({}).runs.filter((candidate) => candidate.prompt?.includes('The primary database is down'))).toHaveLength(1);
  });

  it('is behind the one signed edge: a wrong token is refused before anything is stored, a bad body named', async () => {
    const before = emulator.engine.list({}).runs.length;
    const forged = await page({ page: 'x', text: 'forged' }, { 'x-pager-token': 'not-the-token' });
    expect(forged.status).toBe(401);
    const bad = await page({ page: 'NOT A PAGE' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: 'malformed' });
    await quiet(service);
    expect(emulator.engine.list({}).runs.length).toBe(before);
  });

  it('says how to turn it on while it is off, and its token is among the values the log scrubber hides', async () => {
    const answer = await fetch(`${off.url}/pager/hook`, { method: 'POST', body: '{}' });
    expect(answer.status).toBe(404);
    expect(await answer.json()).toEqual({ error: 'not_configured', message: 'Pager is not configured on this service: set PAGER_TOKEN' });
    expect(secretValues(loadConfig({ env: { PAGER_TOKEN: TOKEN }, cwd: tempDir() }))).toContain(TOKEN);
  });
});
