/**
 * `/metrics` tells sign-in failures and successes, admin actions, refused personal
 * keys, the host and the pid. With `METRICS_TOKEN` set it answers only `Authorization: Bearer <token>`;
 * without it, it stays open as before (the README says how to keep it internal).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import type { RunningService } from '../../src/main.js';
import { CapturingLogger } from '../core/capturing-logger.js';
import { startBridge } from '../helpers/start-bridge.js';

const API_KEY = 'metrics-token-run-api-key';
const METRICS_TOKEN = 'metrics-token-0123456789abcdef';
let emulator: RunningEmulator;
let guarded: RunningService;
let open: RunningService;
const logger = new CapturingLogger();

beforeAll(async () => {
  emulator = await startEmulator({ apiKey: API_KEY, port: 0, manual: true });
  const agentApi = { baseUrl: emulator.baseUrl, apiKey: API_KEY };
  ({ service: guarded } = await startBridge({ agentApi, env: { METRICS_TOKEN }, logger }));
  ({ service: open } = await startBridge({ agentApi }));
});
afterAll(async () => {
  await guarded?.stop();
  await open?.stop();
  await emulator?.close();
});

const metrics = (service: RunningService, authorization?: string) =>
  fetch(`${service.url}/metrics`, { headers: authorization === undefined ? {} : { authorization } });

describe('GET /metrics with METRICS_TOKEN set', () => {
  it.each([
    ['no Authorization header', undefined],
    ['a wrong token', 'Bearer metrics-token-0123456789abcdeX'],
    ['the token without "Bearer"', METRICS_TOKEN],
    ['another scheme', `Basic ${Buffer.from(`x:${METRICS_TOKEN}`).toString('base64')}`],
  ])('refuses %s with 401 and shows nothing', async (_name, authorization) => {
    const answer = await metrics(guarded, authorization);
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
    const body = await answer.text();
    expect(body).not.toContain('agent_bridge_');
    expect(JSON.parse(body)).toEqual({ error: 'unauthorized', message: 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>' });
  });

  it('answers its bearer with the Prometheus text', async () => {
    const answer = await metrics(guarded, `Bearer ${METRICS_TOKEN}`);
    expect(answer.status).toBe(200);
    expect(await answer.text()).toMatch(/^agent_bridge_replica_info\{host="[^"]*",pid="\d+"/m);
    expect(JSON.stringify(logger.lines)).not.toContain(METRICS_TOKEN);
  });

  it('keeps /healthz and /readyz anonymous', async () => {
    expect((await fetch(`${guarded.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${guarded.url}/readyz`)).status).toBe(200);
  });
});

describe('GET /metrics without METRICS_TOKEN', () => {
  it('stays open, as before', async () => {
    const answer = await metrics(open);
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain('agent_bridge_replica_info');
  });
});
