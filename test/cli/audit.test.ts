import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/store/sqlite-store.js';
import { useCliFolder } from '../helpers/cli-context.js';

const NOW = Date.parse('2026-03-26T12:00:00Z');
const HOUR = 3_600_000;

const folder = useCliFolder(NOW);
const cli = (args: string[]) => folder.cli(args);

/** The service's database with three entries: 2 h, 2 days and 10 days old. */
async function recorded(): Promise<void> {
  const store = openSqliteStore({ path: folder.db });
  await store.audit.record({
    at: NOW - 2 * HOUR,
    act: 'run.started',
    personId: 'U0ALICE',
    surface: 'slack',
    runId: 'run-1',
    detail: { route: 'web', key: 'personal' },
    onceKey: 'a',
  });
  await store.audit.record({
    at: NOW - 48 * HOUR,
    act: 'console.pause',
    personId: 'console-admin',
    surface: 'console',
    detail: { schedule: 'nightly' },
    onceKey: 'b',
  });
  await store.audit.record({ at: NOW - 240 * HOUR, act: 'key.removed', personId: 'U0BOB', surface: 'slack', onceKey: 'c' });
  await store.close();
}

describe('agent-bridge audit', () => {
  it('prints the last 7 days newest first, one line per entry', async () => {
    await recorded();
    const result = await cli(['audit']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')).toEqual([
      '2026-03-26 10:00:00Z  run.started            U0ALICE  slack  run-1  route=web  key=personal',
      '2026-03-24 12:00:00Z  console.pause          console-admin  console  -  schedule=nightly',
    ]);
  });

  it('--since widens or narrows the window; --json prints an array of entries only', async () => {
    await recorded();
    expect((await cli(['audit', '--since', '30d'])).stdout.split('\n')).toHaveLength(3);
    const json = await cli(['audit', '--since', '3h', '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([
      {
        at: '2026-03-26T10:00:00.000Z',
        act: 'run.started',
        personId: 'U0ALICE',
        surface: 'slack',
        runId: 'run-1',
        detail: { route: 'web', key: 'personal' },
        onceKey: 'a',
      },
    ]);
  });

  it('says there is nothing without creating the database, and refuses a bad --since (exit 2)', async () => {
    const empty = await cli(['audit']);
    expect(empty.code).toBe(0);
    expect(empty.stdout).toBe('No audit entries in the last 7d.');
    expect(existsSync(folder.db)).toBe(false);
    const bad = await cli(['audit', '--since', 'a week']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--since a week is not a duration');
  });
});
