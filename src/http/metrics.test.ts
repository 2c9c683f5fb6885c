import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { createMetrics } from './metrics.js';

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
