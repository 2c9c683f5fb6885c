import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { createCoreMetrics, createMetrics } from './metrics.js';

const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

describe('the replica in /metrics', () => {
  it('is one info series, agent_bridge_replica_info{host,pid,version} 1', async () => {
    const metrics = createMetrics({ defaultMetrics: false, replica: { host: 'bridge-a', pid: 4242, version: '9.8.7' } });
    const text = await metrics.registry.metrics();
    expect(text).toContain('# TYPE agent_bridge_replica_info gauge');
    expect(text.split('\n').filter((line) => line.startsWith('agent_bridge_replica_info'))).toEqual([
      'agent_bridge_replica_info{host="bridge-a",pid="4242",version="9.8.7"} 1',
    ]);
  });

  it('names this process by default: its host, its pid and the installed version', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const text = await metrics.registry.metrics();
    expect(text).toContain(`agent_bridge_replica_info{host="${hostname()}",pid="${process.pid}",version="${packageJson.version}"} 1`);
  });

  it('stays off the other series (the scrape target already tells replicas apart)', async () => {
    const metrics = createMetrics({ replica: { host: 'bridge-a', pid: 4242, version: '9.8.7' } });
    metrics.httpRequests.inc({ route: '/healthz', method: 'GET', status: '200' });
    const series = (await metrics.registry.metrics()).split('\n').filter((line) => line !== '' && !line.startsWith('#'));
    expect(series.length).toBeGreaterThan(10);
    const carrying = series.filter((line) => /[{,](host|pid)="/.test(line));
    expect(carrying).toEqual(['agent_bridge_replica_info{host="bridge-a",pid="4242",version="9.8.7"} 1']);
  });
});

describe('usage in /metrics (issue 31)', () => {
  it('gives the database’s totals at each scrape: runs by source, credits by source and kind', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    let totals = [{ source: 'slack', runs: 3, inferenceCost: 1.5, computeCost: 0.25 }];
    let reads = 0;
    createCoreMetrics(metrics.registry, {
      usageTotals: async () => {
        reads++;
        return totals;
      },
    });
    const series = async () => (await metrics.registry.metrics()).split('\n').filter((line) => line.startsWith('agent_bridge_usage_'));
    expect(await series()).toEqual([
      'agent_bridge_usage_runs{source="slack"} 3',
      'agent_bridge_usage_credits{source="slack",kind="inference"} 1.5',
      'agent_bridge_usage_credits{source="slack",kind="compute"} 0.25',
    ]);
    expect(reads).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    totals = [
      { source: 'schedule', runs: 1, inferenceCost: 0, computeCost: 0 },
      { source: 'slack', runs: 4, inferenceCost: 2, computeCost: 0.5 },
    ];
    expect(await series()).toEqual([
      'agent_bridge_usage_runs{source="slack"} 4',
      'agent_bridge_usage_runs{source="schedule"} 1',
      'agent_bridge_usage_credits{source="slack",kind="inference"} 2',
      'agent_bridge_usage_credits{source="slack",kind="compute"} 0.5',
      'agent_bridge_usage_credits{source="schedule",kind="inference"} 0',
      'agent_bridge_usage_credits{source="schedule",kind="compute"} 0',
    ]);
    expect(reads).toBe(2);
  });
});
