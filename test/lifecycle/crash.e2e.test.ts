import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/ports/clock.js';
import { IntakeService } from '../../src/core/intake/intake-service.js';
import { referenceLine, type TriggerInput } from '../../src/core/ports/triggers.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { openSqliteStore } from '../../src/store/sqlite-store.js';
import { cliStart } from '../helpers/cli-triggers.js';
import { childWorkspace, startServiceChild, type ChildLine as Line, type ChildWorkspace } from '../helpers/service-child.js';
import type { RunningCli } from '../helpers/spawn-cli.js';

/*
 * Crash windows of docs/architecture.md §5, each with the real service in a child process killed by SIGKILL
 * and restarted on the same database: exactly one run per request, every message delivered once
 * where the destination takes an idempotency key.
 */

const API_KEY = 'crash-test-key-0123456789';
let emulator: RunningEmulator;
const children: RunningCli[] = [];

beforeAll(async () => {
  emulator = await startEmulator({ apiKey: API_KEY, port: 0, timings: { queuedMs: 30, pendingMs: 30, claimedMs: 30, workMs: 200 } });
});
afterAll(async () => {
  await emulator.close();
});
afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => child.stop('SIGKILL')));
  emulator.engine.reset();
});

const workspace = () => childWorkspace('agent-bridge-crash-', 'tracker:\n  interval: 1s\n');

function startChild(space: ChildWorkspace, extra: Record<string, string> = {}): RunningCli {
  const child = startServiceChild(space.dir, { baseUrl: emulator.baseUrl, apiKey: API_KEY }, extra);
  children.push(child);
  return child;
}

/** Submits triggers straight into the database, as an edge of any process would. */
async function submit(dbPath: string, triggers: TriggerInput[]): Promise<void> {
  const store = openSqliteStore({ path: dbPath });
  const service = new IntakeService({ store, clock: systemClock });
  for (const trigger of triggers) await service.submit(trigger);
  await store.close();
}

const startTrigger = (key: string, prompt = 'Fix the build') => cliStart(key, prompt);

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const runsWithReference = (key: string) => emulator.engine.list({}).runs.filter((run) => run.prompt?.includes(referenceLine(key)));
const succeededAnnouncements = (lines: Line[]) => lines.filter((line) => line.kind === 'announce' && line.state === 'SUCCEEDED');

describe('a crash after the run API created the run, before its id was stored', { timeout: 60_000 }, () => {
  it('still ends with exactly one run, announced once', async () => {
    const space = workspace();
    await submit(space.db, [startTrigger('crash-create')]);
    // Trigger first, then start: the child dies on its first create.
    const first = startChild(space, { CRASH_AFTER_CREATE: '1' });
    const ended = await first.exited;
    expect(ended, first.output.stdout + first.output.stderr).toMatchObject({ signal: 'SIGKILL' });
    expect(runsWithReference('crash-create')).toHaveLength(1);

    startChild(space);
    await until(() => succeededAnnouncements(space.delivered()).length === 1, 'the SUCCEEDED announcement');
    expect(runsWithReference('crash-create')).toHaveLength(1);
    const store = openSqliteStore({ path: space.db });
    expect(await store.triggers.getByKey('crash-create')).toMatchObject({ state: 'done', runId: runsWithReference('crash-create')[0]?.run_id });
    await store.close();
  });
});

describe('a crash after a notifier call succeeded, before the outbox recorded it', { timeout: 60_000 }, () => {
  it('re-sends with the same key, so nothing reaches a person twice', async () => {
    const space = workspace();
    await submit(space.db, [startTrigger('crash-notify')]);
    const first = startChild(space, { CRASH_ON_NOTIFY: '2' });
    const ended = await first.exited;
    expect(ended, first.output.stdout + first.output.stderr).toMatchObject({ signal: 'SIGKILL' });
    const attemptedBeforeCrash = space.attempts().map((line) => line.key);
    expect(attemptedBeforeCrash).toHaveLength(2);

    startChild(space);
    await until(() => succeededAnnouncements(space.delivered()).length === 1, 'the SUCCEEDED announcement');
    const attempts = space.attempts().map((line) => line.key);
    // The second call was made again after the restart, under the same key …
    expect(attempts.filter((key) => key === attemptedBeforeCrash[1])).toHaveLength(2);
    // … and the destination kept one of each.
    const delivered = space.delivered().map((line) => line.key);
    expect(new Set(delivered).size).toBe(delivered.length);
    expect(runsWithReference('crash-notify')).toHaveLength(1);
  });
});

describe('two processes on one database', { timeout: 60_000 }, () => {
  it('work every trigger once and deliver every message once', async () => {
    const space = workspace();
    const keys = Array.from({ length: 16 }, (_, index) => `two-${index}`);
    const [a, b] = [startChild(space), startChild(space)];
    await Promise.all([a.waitFor(/child ready/), b.waitFor(/child ready/)]);
    await submit(
      space.db,
      keys.map((key) => startTrigger(key)),
    );

    await until(() => succeededAnnouncements(space.delivered()).length === keys.length, 'every run to be announced', 40_000);
    for (const key of keys) expect(runsWithReference(key)).toHaveLength(1);
    const attempts = space.attempts().map((line) => line.key);
    expect(new Set(attempts).size).toBe(attempts.length);
    expect(succeededAnnouncements(space.attempts())).toHaveLength(keys.length);
  });
});
