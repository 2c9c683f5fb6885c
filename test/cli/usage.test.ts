import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/store/sqlite-store.js';
import { useCliFolder } from '../helpers/cli-context.js';
import { aRun } from '../store/helpers.js';

/** Friday 2026-11-27 12:00 UTC. */
const NOW = Date.parse('2026-11-27T12:00:00Z');
const DAY = 86_400_000;

const folder = useCliFolder(NOW);
const cli = (args: string[]) => folder.cli(args);

/** The service's database with a few runs and the usage the tracker recorded for them. */
async function seed(): Promise<void> {
  mkdirSync(join(folder.cwd, 'data'), { recursive: true });
  const store = openSqliteStore({ path: folder.db });
  const runs = [
    { id: 'r1', at: NOW - 2 * DAY, askedBy: 'U_ANN', routeName: 'web', source: 'slack', usage: { inferenceCost: 1.25, computeCost: 0.25 } },
    { id: 'r2', at: NOW - DAY, askedBy: 'U_ANN', routeName: 'api', source: 'linear', usage: { inferenceCost: 0.5 } },
    { id: 'r3', at: NOW - DAY, askedBy: 'U_BOB', routeName: 'web', source: 'slack', usage: { inferenceCost: 2, computeCost: 1 } },
    { id: 'r4', at: NOW - 1000, routeName: 'nightly', source: 'schedule' },
    { id: 'old', at: NOW - 40 * DAY, askedBy: 'U_ANN', routeName: 'web', source: 'slack', usage: { inferenceCost: 99 } },
  ];
  for (const run of runs) {
    await store.trackedRuns.insert(aRun(run.id, { source: run.source, routeName: run.routeName, ...(run.askedBy && { askedBy: run.askedBy }) }), run.at);
    if (run.usage) await store.trackedRuns.recordUsage([{ runId: run.id, usage: run.usage }], run.at + 1);
  }
  await store.close();
}

describe('agent-bridge usage', () => {
  it('prints runs and credits by person for the last 30 days, most credits first, then a line per UTC day', async () => {
    await seed();
    const result = await cli(['usage']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        'Usage by person since 2026-10-28 12:00 UTC (30d): 4 runs, 5 credits',
        '',
        'person             runs  credits  inference  compute',
        'U_BOB                 1        3          2        1',
        'U_ANN                 2        2       1.75     0.25',
        '(schedule or CLI)     1        0          0        0',
        '',
        'day (UTC)   runs  credits  inference  compute',
        '2026-11-25     1      1.5       1.25     0.25',
        '2026-11-26     2      3.5        2.5        1',
        '2026-11-27     1        0          0        0',
      ].join('\n'),
    );
  });

  it('--by route --since 36h --json prints JSON only: totals, groups and every day of the window', async () => {
    await seed();
    const result = await cli(['usage', '--by', 'route', '--since', '36h', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      by: 'route',
      since: '2026-11-26T00:00:00.000Z',
      until: '2026-11-27T12:00:00.000Z',
      total: { runs: 3, inferenceCost: 2.5, computeCost: 1, credits: 3.5 },
      groups: [
        { key: 'web', runs: 1, inferenceCost: 2, computeCost: 1, credits: 3 },
        { key: 'api', runs: 1, inferenceCost: 0.5, computeCost: 0, credits: 0.5 },
        { key: 'nightly', runs: 1, inferenceCost: 0, computeCost: 0, credits: 0 },
      ],
      days: [
        { day: '2026-11-26', runs: 2, inferenceCost: 2.5, computeCost: 1, credits: 3.5 },
        { day: '2026-11-27', runs: 1, inferenceCost: 0, computeCost: 0, credits: 0 },
      ],
    });
  });

  it('--by source groups by surface or schedule', async () => {
    await seed();
    const result = await cli(['usage', '--by', 'source', '--json']);
    const { groups } = JSON.parse(result.stdout) as { groups: Array<{ key: string; runs: number }> };
    expect(groups.map((group) => [group.key, group.runs])).toEqual([
      ['slack', 2],
      ['linear', 1],
      ['schedule', 1],
    ]);
  });

  it('without a database says so and creates none', async () => {
    const result = await cli(['usage']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [`No database at ${folder.db} yet: no runs recorded.`, '', 'Usage by person since 2026-10-28 12:00 UTC (30d): 0 runs, 0 credits'].join('\n'),
    );
    expect(existsSync(folder.db)).toBe(false);
  });

  it.each([
    [['--by', 'team'], '--by must be one of person, route, source (got "team")'],
    [['--since', '30'], '--since: "30" has no unit'],
    [['--since', 'month'], '--since: "month" is not a duration'],
    [['--since', '0d'], '--since must be longer than 0'],
  ])('refuses %j with exit 2 and a clear message, printing nothing', async (args, message) => {
    await seed();
    const result = await cli(['usage', ...args, '--json']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(message);
  });
});
