/** `/metrics` of the running service gives the usage totals the database holds, by source. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import type { RunningService } from '../../src/main.js';
import { startBridge } from '../helpers/start-bridge.js';
import { aRun } from '../store/helpers.js';

const API_KEY = 'usage-metrics-run-api-key';
let emulator: RunningEmulator;
let service: RunningService;

beforeAll(async () => {
  emulator = await startEmulator({ apiKey: API_KEY, port: 0, manual: true });
  ({ service } = await startBridge({ agentApi: { baseUrl: emulator.baseUrl, apiKey: API_KEY } }));
});
afterAll(async () => {
  await service?.stop();
  await emulator?.close();
});

describe('usage in GET /metrics', () => {
  it('gives runs and credits by source, read from the database at each scrape', async () => {
    const series = async () => (await (await fetch(`${service.url}/metrics`)).text()).split('\n').filter((line) => line.startsWith('agent_bridge_usage_'));
    expect(await series()).toEqual([]);
    await service.store.trackedRuns.insert(aRun('r1', { source: 'slack' }), Date.now());
    await service.store.trackedRuns.insert(aRun('r2', { source: 'schedule' }), Date.now());
    await service.store.trackedRuns.recordUsage([{ runId: 'r1', usage: { inferenceCost: 1.5, computeCost: 0.25 } }], Date.now());
    expect(await series()).toEqual([
      'agent_bridge_usage_runs{source="schedule"} 1',
      'agent_bridge_usage_runs{source="slack"} 1',
      'agent_bridge_usage_credits{source="schedule",kind="inference"} 0',
      'agent_bridge_usage_credits{source="schedule",kind="compute"} 0',
      'agent_bridge_usage_credits{source="slack",kind="inference"} 1.5',
      'agent_bridge_usage_credits{source="slack",kind="compute"} 0.25',
    ]);
  });
});
