import { MIGRATIONS } from './migrations/index.js';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { RaceReport } from '../../test/store/race-child.js';
import { nodeArgsFor } from '../../test/helpers/child-programs.js';
import { aTrigger, anOutboxRow, tempDir } from '../../test/store/helpers.js';
import { appliedMigrations } from './migrate.js';
import { openSqliteStore } from './sqlite-store.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CHILD = join(ROOT, 'test/store/race-child.ts');
const PROCESSES = 4;

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

interface Child {
  ready: Promise<void>;
  done: Promise<string>;
  go: (startAt: number) => void;
}

/** Starts a real Node process running the race child; resolves `done` with its last stdout line. */
function startChild(args: string[]): Child {
  const child = spawn(process.execPath, [...nodeArgsFor(CHILD), ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    if (stdout.startsWith('ready\n')) markReady();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const done = new Promise<string>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`child ${args.join(' ')} exited with ${code}: ${stderr}`));
      else resolve(stdout.trim().split('\n').at(-1) ?? '');
    });
  });
  done.catch(() => markReady()); // a child that dies before `ready` must not hang the test
  return { ready, done, go: (startAt: number) => child.stdin.end(`go ${startAt}\n`) };
}

/** Starts the children, lets them go at the same moment once all are loaded, returns their reports. */
async function raceChildren(argsOf: (worker: string) => string[]): Promise<string[]> {
  const children = Array.from({ length: PROCESSES }, (_, i) => startChild(argsOf(`w${i}`)));
  await Promise.all(children.map((c) => c.ready));
  const startAt = Date.now() + 150;
  for (const c of children) c.go(startAt);
  return Promise.all(children.map((c) => c.done));
}

function expectOneWinnerEach(reports: RaceReport[], pick: (r: RaceReport) => number[], rounds: number): void {
  const winners = new Map<number, number>();
  for (const report of reports) for (const round of pick(report)) winners.set(round, (winners.get(round) ?? 0) + 1);
  const notOne = Array.from({ length: rounds }, (_, round) => [round, winners.get(round) ?? 0]).filter(([, n]) => n !== 1);
  expect(notOne, 'rounds as [round, winners] whose winner count is not 1').toEqual([]);
}

/**
 * Runs a race, which checks its own outcome, until one was contested (more than one child won
 * something), at most three times. Every attempt must be correct; one contested attempt shows the
 * race was real. On a busy machine one child can be first in every round of one attempt, which proves
 * nothing either way, so that alone is not a failure.
 */
async function untilContested(attempt: () => Promise<boolean>): Promise<void> {
  const outcomes: boolean[] = [];
  while (outcomes.length < 3 && !outcomes.includes(true)) outcomes.push(await attempt());
  expect(outcomes, 'whether each attempt was contested (more than one child won something)').toContain(true);
}

describe(`${PROCESSES} processes on one database file`, () => {
  it('apply the migrations once when they open a new file at the same time', async () => {
    const temp = tempDir();
    cleanups.push(temp.remove);
    const path = join(temp.dir, 'bridge.db');
    await raceChildren((worker) => ['open', path, worker]);
    const store = openSqliteStore({ path });
    const applied = appliedMigrations(store.db);
    expect(applied.map((m) => m.id)).toEqual(MIGRATIONS.map((m) => m.id));
    expect(applied[0]?.appliedAt).toBeLessThan(PROCESSES); // the winning child's clock: its index
    await store.close();
  });

  it('each event key, lease, schedule slot, trigger and outbox row is won by exactly one', { timeout: 90_000 }, async () => {
    await untilContested(async () => {
      const rounds = 150;
      const temp = tempDir();
      cleanups.push(temp.remove);
      const path = join(temp.dir, 'bridge.db');

      // One trigger per round over 8 anchors, each with a row owed to its anchor.
      const setup = openSqliteStore({ path });
      const triggerIds: number[] = [];
      for (let i = 0; i < rounds; i++) {
        const anchor = `slack:C1:${i % 8}`;
        const { trigger } = await setup.triggers.enqueue({
          trigger: aTrigger({ key: `ev-${i}`, anchor }),
          owed: [anOutboxRow(`ev-${i}:received`, anchor)],
          now: 0,
        });
        triggerIds.push(trigger.id);
      }
      await setup.close();

      const lines = await raceChildren((worker) => ['race', path, worker, String(rounds)]);
      const reports = lines.map((line) => JSON.parse(line) as RaceReport);

      expect(reports.flatMap((r) => r.violations)).toEqual([]);
      expectOneWinnerEach(reports, (r) => r.eventKeys, rounds);
      expectOneWinnerEach(reports, (r) => r.leases, rounds);
      expectOneWinnerEach(reports, (r) => r.slots, rounds);

      const claimedTriggers = reports.flatMap((r) => r.triggers).sort((a, b) => a - b);
      expect(claimedTriggers).toEqual(triggerIds);
      const claimedRows = reports.flatMap((r) => r.outbox);
      expect(new Set(claimedRows).size).toBe(claimedRows.length);
      expect(claimedRows).toHaveLength(rounds);

      const store = openSqliteStore({ path });
      expect(await store.triggers.countByState()).toEqual({ pending: 0, working: 0, done: rounds, failed: 0, ignored: 0 });
      expect(await store.outbox.counts()).toEqual({ pending: 0, sending: 0, sent: rounds, failed: 0 });
      expect((await store.anchors.history('slack:C1:0')).length).toBe(Math.ceil(rounds / 8));
      await store.close();
      return reports.filter((r) => r.eventKeys.length > 0).length > 1 && reports.filter((r) => r.triggers.length > 0).length > 1;
    });
  });

  it('two starts racing for the last slot under a limit: exactly one is reserved, in every round (issue 31)', { timeout: 90_000 }, async () => {
    await untilContested(() => reserveRace(100));
  });
});

/** One race for the last slot: every round has exactly one reservation; answers whether more than one child won one. */
async function reserveRace(rounds: number): Promise<boolean> {
  const temp = tempDir();
  cleanups.push(temp.remove);
  const path = join(temp.dir, 'bridge.db');
  // Each child's trigger of each round, being worked (a reservation counts while its trigger is).
  const setup = openSqliteStore({ path });
  for (let round = 0; round < rounds; round++)
    for (let child = 0; child < PROCESSES; child++)
      await setup.triggers.enqueue({ trigger: aTrigger({ key: `res-${round}-w${child}`, anchor: `A${round}-${child}` }), now: 0 });
  await setup.close();

  const lines = await raceChildren((worker) => ['reserve', path, worker, String(rounds)]);
  const reports = lines.map((line) => JSON.parse(line) as RaceReport);
  expect(reports.flatMap((r) => r.violations)).toEqual([]);
  expectOneWinnerEach(reports, (r) => r.reserved ?? [], rounds);

  const store = openSqliteStore({ path });
  expect(store.db.prepare('SELECT COUNT(*) AS n FROM run_reservations').get()).toEqual({ n: rounds });
  await store.close();
  return reports.filter((r) => (r.reserved ?? []).length > 0).length > 1;
}
