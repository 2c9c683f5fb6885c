/**
 * The crash-burst scenario, shared by the SQLite suite (crash-burst.e2e.test.ts) and the PostgreSQL
 * replicas suite (postgres-crash-burst.e2e.test.ts). The real service runs as child processes (Slack
 * over HTTP against the fake Slack Web API, the run API emulated with short timings, tracker every
 * 1 s) on one database. A burst of 200 mentions arrives while processes are SIGKILLed at seeded random
 * moments and restarted on the same database; events that met a dead or dying process are redelivered
 * as Slack does (same envelope, `x-slack-retry-num`), some are redelivered although they were answered
 * (Slack's http_timeout retries). Runs end on their own (succeed, fail, error) or block and are
 * released by the test once the thread says so. At the end every mention has exactly one run and its
 * thread shows exactly one status message, one message per BLOCKED / end state, and 👀 replaced by
 * ✅ / ❌ — counted on the fake Slack API's calls, not on what the service believes.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { Store } from '../../src/core/ports/store.js';
import { referenceLine } from '../../src/core/ports/triggers.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { messageKey, threadKey } from '../../src/slack/normalise.js';
import type { FakeSlackApi } from '../fakes/slack-api.js';
import { appMention, eventCallback } from '../fixtures/slack/events.js';
import { SLACK_IDS, nextTs } from '../fixtures/slack/ids.js';
import { SECRET, useBurstFixtures, type BurstDatabase } from './burst-fixtures.js';
import {
  CHANNELS,
  DIRECTIVE,
  ThreadView,
  announcedState,
  announcements,
  errorLines,
  logLines,
  expectSettledBooks,
  lateEnds,
  readBooks,
  summaryLine,
  threadProblems,
  type Mention,
  type Outcome,
} from './crash-burst-checks.js';
import { traceEnds } from './end-trace.js';
import { KILL_HOLDS_MS, PLATFORM_GIVES_UP_MS, WORK_BUDGET_MS, stateShownWithinMs } from './promises.js';
import { deliverLikeSlack, planKills, runKills, seededRandom, sleep, stressSeed, sumReports, type BridgePool } from './crash-harness.js';

/** Mentions in a burst. */
export const MENTIONS = 200;
/** The burst: mentions are spread evenly over this long. */
export const BURST_MS = 10_000;

export interface CrashBurstScenario {
  label: string;
  processes: number;
  kills: number;
  database: BurstDatabase;
}

/** Registers the suite's fixtures (see `useBurstFixtures`); returns the crash-burst scenario runner. */
export function useCrashBurst(): (scenario: CrashBurstScenario) => Promise<void> {
  const fixtures = useBurstFixtures();
  return async (scenario) => {
    const { pool, openBooks } = await fixtures.newPool({ size: scenario.processes, database: scenario.database });
    await crashBurst({ scenario, slack: fixtures.slack, emulator: fixtures.emulator, pool, openBooks });
  };
}

/** The mentions of a burst, their outcomes, channels and redeliveries drawn from `random`. */
export function planMentions(random: () => number): Mention[] {
  return Array.from({ length: MENTIONS }, (_, index) => {
    const roll = random();
    const outcome: Outcome = roll < 0.1 ? 'fail' : roll < 0.2 ? 'error' : roll < 0.35 ? 'block' : roll < 0.5 ? 'pr' : 'succeed';
    const channel = CHANNELS[Math.floor(random() * CHANNELS.length)]!;
    const ts = nextTs();
    const text = `<@${SLACK_IDS.botUser}> stress task ${index}${DIRECTIVE[outcome]}`;
    const key = messageKey(channel, ts);
    return {
      index,
      channel,
      ts,
      text,
      key,
      outcome,
      destination: threadKey(channel, ts),
      reference: referenceLine(key),
      redelivered: random() < 0.05,
      envelope: eventCallback(appMention({ channel, ts, text })),
      acked: false,
      released: false,
    };
  });
}

/**
 * Slack's side of a burst: each mention sent at its moment over `burstMs`, redelivered as Slack does
 * until answered — or until Slack would give it up (`PLATFORM_GIVES_UP_MS` after its first delivery).
 */
export function sendBurst(
  fixtures: { slack: FakeSlackApi; pool: BridgePool },
  mentions: readonly Mention[],
  timing: { t0: number; burstMs: number; pick: (urls: string[]) => string },
): Promise<void> {
  const { slack, pool } = fixtures;
  const { t0, burstMs, pick } = timing;
  return Promise.all(
    mentions.map(async (mention) => {
      await sleep(t0 + (mention.index * burstMs) / mentions.length - Date.now());
      slack.addUserMessage({ channel: mention.channel, user: SLACK_IDS.user, text: mention.text, ts: mention.ts });
      const deadline = Date.now() + PLATFORM_GIVES_UP_MS;
      mention.delivery = await deliverLikeSlack(pool, SECRET, mention.envelope, { pick, deadline });
      mention.ackedAt = Date.now();
      if (mention.redelivered) {
        // Slack did not see the answer in time (http_timeout) and sends the event again, maybe elsewhere.
        const again = await deliverLikeSlack(pool, SECRET, mention.envelope, { pick, deadline, firstRetryNum: 1 });
        mention.delivery = sumReports([mention.delivery, again]);
      }
      mention.acked = true;
    }),
  ).then(() => undefined);
}

/**
 * The people in the threads: they note when each thread shows its end, and let a BLOCKED run (which
 * waits for a human) go on once its thread announced it. Runs until `stop()`.
 */
export function watchThreads(view: ThreadView, emulator: RunningEmulator, mentions: readonly Mention[]): { stop(): Promise<void> } {
  let watching = true;
  const watcher = (async () => {
    while (watching) {
      const runs = view.runsByReference();
      const byThread = view.threads();
      for (const mention of mentions) {
        if (mention.settledAt !== undefined) continue;
        if (view.settled(mention, runs, byThread)) {
          mention.settledAt = Date.now();
          continue;
        }
        if (mention.outcome !== 'block' || mention.released) continue;
        const run = runs.get(mention.reference)?.[0];
        if (run?.state !== 'BLOCKED') continue;
        const posts = byThread.get(`${mention.channel} ${mention.ts}`) ?? [];
        if (!announcements(posts).some((post) => announcedState(post) === 'BLOCKED')) continue;
        emulator.engine.drive(run.run_id, 'SUCCEEDED', { artifacts: [] });
        mention.released = true;
      }
      await sleep(200);
    }
  })();
  return {
    stop: async () => {
      watching = false;
      await watcher;
    },
  };
}

/** Sets the fake Slack workspace up for a burst: its channels and the person mentioning the bot. */
export function prepareSlack(slack: FakeSlackApi): void {
  for (const channel of CHANNELS) slack.setChannel(channel, { name: channel.toLowerCase() });
  slack.setUser(SLACK_IDS.user, { display_name: 'ada' });
}

/** Starts every slot of the pool: replicas together on PostgreSQL, one after the other on SQLite. */
export async function startPool(pool: BridgePool, database: BurstDatabase): Promise<void> {
  if (database.kind === 'postgres') {
    // Replicas starting together on an empty database: one migrates, the others wait for its lock.
    await Promise.all([...pool.slots.keys()].map((index) => pool.start(index)));
  } else {
    // One after the other: two processes creating a new database file at the same moment is its own
    // test (concurrent-open.test.ts); here the first creates it, the others join.
    for (const index of pool.slots.keys()) await pool.start(index);
  }
}

/** Reads the books after the pool stopped, prints the figures and asserts "exactly once" for every mention. */
export async function verifyBurst(
  run: {
    label: string;
    seed: number;
    slack: FakeSlackApi;
    view: ThreadView;
    pool: BridgePool;
    openBooks: () => Promise<Store>;
    /** When set, a thread that showed an end later than this after the run API reported it is a problem. */
    stateShownMs?: (kills: number) => number;
  },
  mentions: readonly Mention[],
  figures: string,
): Promise<void> {
  const store = await run.openBooks();
  const dump = process.env['CRASH_BURST_DUMP'];
  // For a closer look at where the time went: every owed row with its times, beside each run's end.
  if (dump) {
    const rows = await store.outbox.list();
    const ends = Object.fromEntries([...run.view.runsByReference()].map(([reference, found]) => [reference, found[0]?.updated_at]));
    writeFileSync(
      dump,
      JSON.stringify({
        rows,
        ends,
        mentions: mentions.map((m) => ({ key: m.key, destination: m.destination, reference: m.reference, settledAt: m.settledAt, ackedAt: m.ackedAt })),
      }),
    );
  }
  const books = await readBooks(store, mentions).finally(() => store.close());
  const problems = threadProblems(run.slack, run.view, mentions, books, mentions.length);
  if (run.stateShownMs !== undefined) problems.push(...lateEnds(run.view, mentions, run.pool, run.stateShownMs));
  const errors = errorLines(run.pool);
  console.log(`[crash-burst] ${run.label}: ${figures} ${summaryLine(run.slack, run.view, mentions, books, run.pool)} seed=${run.seed}`);
  if (errors.length > 0) console.log(`[crash-burst] ${run.label}: error log lines:\n${errors.slice(0, 10).join('\n')}`);
  expect(problems, `${problems.length} problems; seed ${run.seed}`).toEqual([]);
  expectSettledBooks(books, mentions.length);
}

/** For every mention whose thread has not shown its end: where that end is, read from the books while the pool runs. */
async function whereTheEndsAre(view: ThreadView, mentions: readonly Mention[], openBooks: () => Promise<Store>, pool: BridgePool): Promise<string> {
  const runs = view.runsByReference();
  const byThread = view.threads();
  const open = mentions.filter((mention) => !view.settled(mention, runs, byThread));
  const logs = logLines(pool);
  const logDir = process.env['CRASH_BURST_LOGS'];
  // Every process's whole log, for reading a failure in full (the message shows each run's lines only).
  if (logDir) pool.started.forEach((child, index) => writeFileSync(join(logDir, `process-${child.child.pid ?? index}.log`), child.output.stdout));
  const store = await openBooks();
  try {
    const lines = await traceEnds(store, open, runs, Date.now());
    const about = open.flatMap((mention) => {
      const runId = runs.get(mention.reference)?.[0]?.run_id;
      return runId
        ? logs
            .filter((line) => line.includes(runId))
            .slice(-6)
            .map((line) => `  ${mention.index}: ${line.slice(0, 400)}`)
        : [];
    });
    const trackerTrouble = logs.filter((line) => line.includes('"component":"tracker"') && /"level":(40|50|60)/.test(line)).slice(-10);
    return [...lines, 'log lines naming these runs (last 6 each):', ...about, 'tracker warnings:', ...trackerTrouble].join('\n');
  } finally {
    await store.close();
  }
}

interface BurstRun {
  scenario: CrashBurstScenario;
  slack: FakeSlackApi;
  emulator: RunningEmulator;
  pool: BridgePool;
  openBooks: () => Promise<Store>;
}

async function crashBurst({ scenario, slack, emulator, pool: bridges, openBooks }: BurstRun): Promise<void> {
  const seed = stressSeed();
  const random = seededRandom(seed);
  const pickRandom = seededRandom(seed ^ 0x5bd1e995);
  console.log(`[crash-burst] ${scenario.label}: seed ${seed} (replay with STRESS_SEED=${seed})`);
  const began = Date.now();
  prepareSlack(slack);
  const view = new ThreadView(slack, emulator);

  // The whole plan comes from the seed: outcomes, channels, redeliveries, kill moments, victims, downtimes.
  const mentions = planMentions(random);
  const killPlan = planKills(scenario.kills, scenario.processes, BURST_MS, random);

  await startPool(bridges, scenario.database);
  const t0 = Date.now();
  const pick = (urls: string[]) => urls[Math.floor(pickRandom() * urls.length)]!;
  const sender = sendBurst({ slack, pool: bridges }, mentions, { t0, burstMs: BURST_MS, pick });
  // A busy machine makes the burst's kills run late: restartMs says how long each restart took.
  const { done: killer, kills, restartMs } = runKills(bridges, killPlan, t0);
  const watcher = watchThreads(view, emulator, mentions);

  let burstMs: number;
  let settledAt: number;
  try {
    await Promise.all([sender, killer]);
    burstMs = Date.now() - t0;
    await untilEveryEndShown(
      view,
      mentions,
      bridges,
      async (what) =>
        `${what}\n${view.unsettled(mentions)}\n${await whereTheEndsAre(view, mentions, openBooks, bridges)}\nkills so far: ${kills()}\n${bridges.tails()}`,
    );
    settledAt = Date.now();
  } finally {
    await watcher.stop();
  }
  await bridges.stopAll();

  expect(kills()).toBe(scenario.kills);
  const slowestRestart = (Math.max(0, ...restartMs) / 1000).toFixed(1);
  const timing = `burst=${(burstMs / 1000).toFixed(1)}s (slowest restart ${slowestRestart}s) settle=${((settledAt - t0 - burstMs) / 1000).toFixed(1)}s duration=${((Date.now() - began) / 1000).toFixed(1)}s`;
  await verifyBurst(
    { label: scenario.label, seed, slack, view, pool: bridges, openBooks, stateShownMs: stateShownWithinMs },
    mentions,
    `processes=${scenario.processes} kills=${kills()} ${timing}`,
  );
}

/**
 * Waits until every thread shows its run's end. Fails as soon as a thread has not shown a state people
 * must hear of (BLOCKED, an end) `stateShownWithinMs` after the run API reported it, not counting time when
 * no process was up — what the service promises — or, failing that, after the work budget.
 */
async function untilEveryEndShown(view: ThreadView, mentions: readonly Mention[], pool: BridgePool, explain: (what: string) => Promise<string>): Promise<void> {
  const budgetEnds = Date.now() + WORK_BUDGET_MS;
  for (;;) {
    if (mentions.every((mention) => mention.settledAt !== undefined)) return;
    const now = Date.now();
    const overdue = view.overdue(
      mentions,
      now,
      (from) => now - from - pool.downBetween(from, now) > stateShownWithinMs(pool.killsBetween(from - KILL_HOLDS_MS, now)),
    );
    if (overdue.length > 0)
      throw new Error(
        await explain(
          `${overdue.length} threads did not show a state within what stateShownWithinMs promises after the run API reported it: ${overdue.join('; ')}`,
        ),
      );
    if (now > budgetEnds) throw new Error(await explain(`the work budget of ${WORK_BUDGET_MS} ms after the burst ran out`));
    await sleep(100);
  }
}
