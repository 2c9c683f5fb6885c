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
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { Store } from '../../src/core/ports/store.js';
import { referenceLine } from '../../src/core/ports/triggers.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { messageKey, threadKey } from '../../src/slack/normalise.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { openSqliteStore } from '../../src/store/sqlite-store.js';
import { startFakeSlackApi, type FakeSlackApi } from '../fakes/slack-api.js';
import { appMention, eventCallback } from '../fixtures/slack/events.js';
import { SLACK_IDS, nextTs } from '../fixtures/slack/ids.js';
import { tempDir } from '../helpers/spawn-cli.js';
import {
  CHANNELS,
  DIRECTIVE,
  ThreadView,
  announcedState,
  announcements,
  errorLines,
  expectSettledBooks,
  readBooks,
  summaryLine,
  threadProblems,
  type Mention,
  type Outcome,
} from './crash-burst-checks.js';
import { BridgePool, deliverLikeSlack, seededRandom, sleep, stressSeed, sumReports, until } from './crash-harness.js';

const SECRET = 'stress-signing-secret-0123456789';
const BOT_TOKEN = 'xoxb-0000-1111-stress-token';
const API_KEY = 'stress-run-api-key-0123456789';
const MENTIONS = 200;
/** The burst: mentions are spread evenly over this long. */
const BURST_MS = 10_000;
/** After the burst, everything must have settled within this long. */
const SETTLE_MS = 35_000;

/** Where the processes keep their state: a SQLite file in the scenario's folder, or a PostgreSQL database. */
export type BurstDatabase = { kind: 'sqlite' } | { kind: 'postgres'; url: () => Promise<string> };

export interface CrashBurstScenario {
  label: string;
  processes: number;
  kills: number;
  database: BurstDatabase;
}

/** Registers the suite's fakes and cleanup hooks (call at a file's top level); returns the scenario runner. */
export function useCrashBurst(): (scenario: CrashBurstScenario) => Promise<void> {
  let slack: FakeSlackApi;
  let emulator: RunningEmulator;
  let pool: BridgePool | undefined;
  /** The scenario's working directory (database, config), removed after it. */
  let workDir: string | undefined;

  beforeAll(async () => {
    slack = await startFakeSlackApi({ token: BOT_TOKEN });
    emulator = await startEmulator({ apiKey: API_KEY, port: 0, timings: { queuedMs: 50, pendingMs: 50, claimedMs: 50, workMs: 400 } });
  });
  afterEach(async () => {
    await pool?.killAll();
    pool = undefined;
    if (workDir) rmSync(workDir, { recursive: true, force: true });
    workDir = undefined;
    emulator.engine.reset();
    slack.reset();
  });
  afterAll(async () => {
    await pool?.killAll();
    await emulator?.close();
    await slack?.close();
  });

  return async (scenario) => {
    const cwd = tempDir('agent-bridge-stress-');
    workDir = cwd;
    const sqlitePath = join(cwd, 'bridge.db');
    const postgresUrl = scenario.database.kind === 'postgres' ? await scenario.database.url() : undefined;
    const database: Record<string, string> = postgresUrl === undefined ? { DATABASE_PATH: sqlitePath } : { DATABASE_URL: postgresUrl };
    pool = new BridgePool({
      size: scenario.processes,
      cwd,
      env: {
        AGENT_API_BASE_URL: emulator.baseUrl,
        AGENT_API_KEY: API_KEY,
        SLACK_BOT_TOKEN: BOT_TOKEN,
        SLACK_SIGNING_SECRET: SECRET,
        SLACK_API_URL: slack.url,
        ...database,
        PORT: '0',
        HOST: '127.0.0.1',
        // info: the children's logs say when a crashed create was adopted (counted in the summary).
        LOG_LEVEL: 'info',
        LEASE_MS: '3000',
      },
    });
    const openBooks = (): Promise<Store> =>
      postgresUrl === undefined ? Promise.resolve(openSqliteStore({ path: sqlitePath })) : openPostgresStore({ url: postgresUrl });
    await crashBurst({ scenario, slack, emulator, pool, cwd, openBooks });
  };
}

function planMentions(random: () => number): Mention[] {
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

interface BurstRun {
  scenario: CrashBurstScenario;
  slack: FakeSlackApi;
  emulator: RunningEmulator;
  pool: BridgePool;
  cwd: string;
  openBooks: () => Promise<Store>;
}

async function crashBurst({ scenario, slack, emulator, pool: bridges, cwd, openBooks }: BurstRun): Promise<void> {
  const seed = stressSeed();
  const random = seededRandom(seed);
  const pickRandom = seededRandom(seed ^ 0x5bd1e995);
  console.log(`[crash-burst] ${scenario.label}: seed ${seed} (replay with STRESS_SEED=${seed})`);
  const began = Date.now();
  for (const channel of CHANNELS) slack.setChannel(channel, { name: channel.toLowerCase() });
  slack.setUser(SLACK_IDS.user, { display_name: 'ada' });
  writeFileSync(join(cwd, 'agent-bridge.yml'), 'tracker:\n  interval: 1s\n');
  const view = new ThreadView(slack, emulator);

  // The whole plan comes from the seed: outcomes, channels, redeliveries, kill moments, victims, downtimes.
  const mentions = planMentions(random);
  const killPlan = Array.from({ length: scenario.kills }, (_, k) => ({
    atMs: Math.round((BURST_MS * (k + 0.15 + 0.7 * random())) / scenario.kills),
    slot: Math.floor(random() * scenario.processes),
    downMs: Math.round(100 + 500 * random()),
  }));

  let kills = 0;
  if (scenario.database.kind === 'postgres') {
    // Replicas starting together on an empty database: one migrates, the others wait for its lock.
    await Promise.all([...bridges.slots.keys()].map((index) => bridges.start(index)));
  } else {
    // One after the other: two processes creating a new database file at the same moment is its own
    // test (concurrent-open.test.ts); here the first creates it, the others join.
    for (const index of bridges.slots.keys()) await bridges.start(index);
  }
  const t0 = Date.now();
  const deadline = t0 + BURST_MS + SETTLE_MS;
  const pick = (urls: string[]) => urls[Math.floor(pickRandom() * urls.length)]!;

  const sender = Promise.all(
    mentions.map(async (mention) => {
      await sleep(t0 + (mention.index * BURST_MS) / MENTIONS - Date.now());
      slack.addUserMessage({ channel: mention.channel, user: SLACK_IDS.user, text: mention.text, ts: mention.ts });
      mention.delivery = await deliverLikeSlack(bridges, SECRET, mention.envelope, { pick, deadline });
      mention.ackedAt = Date.now();
      if (mention.redelivered) {
        // Slack did not see the answer in time (http_timeout) and sends the event again, maybe elsewhere.
        const again = await deliverLikeSlack(bridges, SECRET, mention.envelope, { pick, deadline, firstRetryNum: 1 });
        mention.delivery = sumReports([mention.delivery, again]);
      }
      mention.acked = true;
    }),
  );
  const killer = (async () => {
    for (const kill of killPlan) {
      await sleep(t0 + kill.atMs - Date.now());
      await bridges.kill(kill.slot);
      kills++;
      await sleep(kill.downMs);
      await bridges.start(kill.slot);
    }
  })();
  // The people in the threads: they note when each thread shows its end, and a BLOCKED run (which waits
  // for a human) is let go on once its thread announced it.
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

  let burstMs: number;
  let settledAt: number;
  try {
    await Promise.all([sender, killer]);
    burstMs = Date.now() - t0;
    await until(
      () => mentions.every((mention) => mention.settledAt !== undefined),
      'every run to end and every thread to show its end',
      Math.max(1_000, deadline - Date.now()),
      () => `${view.unsettled(mentions)}\nkills so far: ${kills}\n${bridges.tails()}`,
      100,
    );
    settledAt = Date.now();
  } finally {
    watching = false;
    await watcher;
  }
  await bridges.stopAll();

  const store = await openBooks();
  const books = await readBooks(store, mentions).finally(() => store.close());
  const problems = threadProblems(slack, view, mentions, books, MENTIONS);
  const errors = errorLines(bridges);
  console.log(
    `[crash-burst] ${scenario.label}: processes=${scenario.processes} kills=${kills} ${summaryLine(slack, view, mentions, books, bridges)} ` +
      `burst=${(burstMs / 1000).toFixed(1)}s settle=${((settledAt - t0 - burstMs) / 1000).toFixed(1)}s duration=${((Date.now() - began) / 1000).toFixed(1)}s seed=${seed}`,
  );
  if (errors.length > 0) console.log(`[crash-burst] ${scenario.label}: error log lines:\n${errors.slice(0, 10).join('\n')}`);
  expect(kills).toBe(scenario.kills);
  expect(problems, `${problems.length} problems; seed ${seed}`).toEqual([]);
  expectSettledBooks(books, MENTIONS);
}
