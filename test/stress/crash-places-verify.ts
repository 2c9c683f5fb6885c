/**
 * The end of the crash scenario with two places (crash-places-scenario.ts): reads the service's books
 * once its last process stopped, prints the figures in one line (what docs/reliability.md quotes), and
 * asserts "each state once per place" for every run — a failure lists every run and place where
 * something doubled or went missing.
 */
import { expect } from 'vitest';
import type { Store } from '../../src/core/ports/store.js';
import { ANNOUNCED, logLines, errorLines } from './crash-burst-checks.js';
import { sumReports, type BridgePool } from './crash-harness.js';
import { globalProblems, runProblems, type PlacesRun, type PlacesSnapshot, type RunBooks } from './crash-places-checks.js';

interface Books {
  runs: Map<number, RunBooks>;
  outbox: Awaited<ReturnType<Store['outbox']['counts']>>;
  failedRows: string[];
  triggerStates: Awaited<ReturnType<Store['triggers']['countByState']>>;
  stillTracked: number;
  /** Triggers claimed more than once: their first holder died (or its lease ran out) before finishing. */
  triggersReclaimed: number;
  /** Rows claimed more than once: their first holder died before recording the outcome. */
  rowsRedelivered: number;
}

async function readBooks(store: Store, runs: readonly PlacesRun[]): Promise<Books> {
  const byRun = new Map<number, RunBooks>();
  let triggersReclaimed = 0;
  for (const run of runs) {
    const trigger = await store.triggers.getByKey(run.key);
    if ((trigger?.attempts ?? 0) > 1) triggersReclaimed++;
    const tracked = trigger?.runId ? await store.trackedRuns.get(trigger.runId) : undefined;
    byRun.set(run.index, { triggerRun: trigger?.runId ?? undefined, destinations: tracked?.destinations ?? [] });
  }
  return {
    runs: byRun,
    outbox: await store.outbox.counts(),
    failedRows: (await store.outbox.list({ state: 'failed' })).map((row) => `${row.key}: ${row.lastError ?? ''}`),
    triggerStates: await store.triggers.countByState(),
    stillTracked: await store.trackedRuns.countTracked(),
    triggersReclaimed,
    rowsRedelivered: (await store.outbox.list()).filter((row) => row.attempts > 1).length,
  };
}

/** The q-quantile of `values`, in seconds with one decimal. */
function quantile(values: number[], q: number): string {
  const sorted = values.filter((value) => !Number.isNaN(value)).sort((a, b) => a - b);
  return sorted.length === 0 ? 'n/a' : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(1);
}

/** The figures of a scenario in one line. */
function summaryLine(snapshot: PlacesSnapshot, runs: readonly PlacesRun[], books: Books, pool: BridgePool): string {
  const { slack, linear } = snapshot;
  const announced = runs.reduce((sum, run) => sum + ANNOUNCED[run.outcome].length, 0);
  const count = (asked: PlacesRun['asked']) => runs.filter((run) => run.asked === asked).length;
  const deliveries = (asked: PlacesRun['asked']) => {
    const report = sumReports(runs.filter((run) => run.asked === asked).flatMap((run) => (run.delivery ? [run.delivery] : [])));
    const failed =
      Object.entries(report.failures)
        .map(([reason, n]) => `${reason} ${n}`)
        .join(', ') || 'none';
    return `${report.attempts} (failed: ${failed})`;
  };
  const toEnd = runs.map((run) => ((run.settledAt ?? Number.NaN) - (run.ackedAt ?? Number.NaN)) / 1000);
  const adopted = logLines(pool).filter((line) => /adopted the run an earlier attempt created/.test(line)).length;
  const runCount = [...snapshot.runsByReference.values()].reduce((sum, list) => sum + list.length, 0);
  return (
    `runs=${runCount} (asked in Linear ${count('linear')}, in Slack ${count('slack')}; blocked+end ${announced} per place) ` +
    `slack: posts=${slack.callsTo('chat.postMessage').length} edits=${slack.callsTo('chat.update').length} ` +
    `linear: comments=${linear.comments().filter((comment) => comment.user.id === 'api-user').length} createComment-calls=${linear.callsTo('createComment').length} ` +
    `edits=${linear.callsTo('updateComment').length} ` +
    `deliveries: linear=${deliveries('linear')} slack=${deliveries('slack')} redelivered=${runs.filter((run) => run.redelivered).length} ` +
    `crash-recoveries: triggers=${books.triggersReclaimed} (runs adopted ${adopted}) outbox-rows=${books.rowsRedelivered} log-errors=${errorLines(pool).length} ` +
    `ack-to-end p50=${quantile(toEnd, 0.5)}s p95=${quantile(toEnd, 0.95)}s max=${quantile(toEnd, 1)}s processes-started=${pool.started.length}`
  );
}

/** Reads the books after the pool stopped, prints the figures and asserts "each state once per place" for every run. */
export async function verifyPlaces(
  context: { label: string; seed: number; snapshot: PlacesSnapshot; pool: BridgePool; openBooks: () => Promise<Store> },
  runs: readonly PlacesRun[],
  figures: string,
): Promise<void> {
  const { label, seed, snapshot, pool } = context;
  const store = await context.openBooks();
  const books = await readBooks(store, runs).finally(() => store.close());
  const problems = [...runs.flatMap((run) => runProblems(snapshot, run, books.runs.get(run.index))), ...globalProblems(snapshot, runs)];
  console.log(`[crash-places] ${label}: ${figures} ${summaryLine(snapshot, runs, books, pool)} seed=${seed}`);
  expect(problems, `${problems.length} problems; seed ${seed}`).toEqual([]);
  expect(books.outbox).toMatchObject({ pending: 0, sending: 0, failed: 0 });
  expect(books.failedRows).toEqual([]);
  expect(books.triggerStates).toMatchObject({ done: runs.length, pending: 0, working: 0, failed: 0, ignored: 0 });
  expect(books.stillTracked).toBe(0);
}
