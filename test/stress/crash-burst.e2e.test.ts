import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isTerminalState } from '../../src/core/ports/agent-runs.js';
import { receivedKey } from '../../src/core/ports/messages.js';
import { referenceLine } from '../../src/core/ports/triggers.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { messageKey, threadKey } from '../../src/slack/normalise.js';
import { openSqliteStore } from '../../src/store/sqlite-store.js';
import { startFakeSlackApi, type FakeMessage, type FakeSlackApi } from '../fakes/slack-api.js';
import { appMention, eventCallback, type EventCallback } from '../fixtures/slack/events.js';
import { SLACK_IDS, nextTs } from '../fixtures/slack/ids.js';
import { tempDir } from '../helpers/spawn-cli.js';
import { BridgePool, deliverLikeSlack, seededRandom, sleep, stressSeed, sumReports, until, type DeliveryReport } from './crash-harness.js';

/*
 * Issue 11, items 1 and 6 — crashes under load. The real service runs as child processes (Slack over
 * HTTP against the fake Slack Web API, the run API emulated with short timings, tracker every 1 s) on
 * one SQLite file. A burst of 200 mentions arrives while the service is SIGKILLed several times at
 * seeded random moments and restarted on the same database; events that met a dead or dying process
 * are redelivered as Slack does (same envelope, `x-slack-retry-num`), some are redelivered although
 * they were answered (Slack's http_timeout retries). Runs end on their own (succeed, fail, error) or
 * block and are released by the test once the thread says so. At the end every mention has exactly one
 * run and its thread shows exactly one status message, one message per BLOCKED / end state, and 👀
 * replaced by ✅ / ❌ — counted on the fake Slack API's calls, not on what the service believes.
 *
 * Replay a failure with the seed it printed: STRESS_SEED=<seed> npx vitest run test/stress/crash-burst.e2e.test.ts
 */

const SECRET = 'stress-signing-secret-0123456789';
const BOT_TOKEN = 'xoxb-0000-1111-stress-token';
const API_KEY = 'stress-run-api-key-0123456789';
const CHANNELS = ['C0STRESS01', 'C0STRESS02', 'C0STRESS03', 'C0STRESS04'];
const MENTIONS = 200;
/** The burst: mentions are spread evenly over this long. */
const BURST_MS = 10_000;
/** After the burst, everything must have settled within this long. */
const SETTLE_MS = 35_000;

type Outcome = 'succeed' | 'pr' | 'fail' | 'error' | 'block';
const ANNOUNCED: Record<Outcome, string[]> = {
  succeed: ['SUCCEEDED'],
  pr: ['SUCCEEDED'],
  fail: ['FAILED'],
  error: ['ERROR'],
  block: ['BLOCKED', 'SUCCEEDED'],
};
const DIRECTIVE: Record<Outcome, string> = { succeed: '', pr: ' emulate: pr', fail: ' emulate: fail', error: ' emulate: error', block: ' emulate: block' };

interface Mention {
  index: number;
  channel: string;
  ts: string;
  text: string;
  key: string;
  destination: string;
  reference: string;
  outcome: Outcome;
  /** Slack delivers this one twice although the first delivery was answered. */
  redelivered: boolean;
  envelope: EventCallback;
  acked: boolean;
  /** When Slack got its 200, and when the thread first showed the end (seen by polling). */
  ackedAt?: number;
  settledAt?: number;
  delivery?: DeliveryReport;
  /** BLOCKED run driven on by the test. */
  released: boolean;
}

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

/** The state an announcement post speaks of (render-text.ts: ⏸ BLOCKED, ✅ Done, ❌ <title> FAILED|ERROR). */
function announcedState(post: FakeMessage): string {
  if (post.text.startsWith('⏸')) return 'BLOCKED';
  if (post.text.startsWith('✅')) return 'SUCCEEDED';
  const ended = /^❌ .* (FAILED|ERROR)[:.]/.exec(post.text);
  return ended?.[1] ?? `?${post.text.slice(0, 60)}`;
}

const metadataKey = (post: FakeMessage): string | undefined => {
  const key = post.metadata?.event_payload['key'];
  return typeof key === 'string' ? key : undefined;
};

/** The bot's posts of every thread, by `channel ts` of the thread. */
function threads(): Map<string, FakeMessage[]> {
  const byThread = new Map<string, FakeMessage[]>();
  for (const channel of CHANNELS) {
    for (const message of slack.messages(channel)) {
      if (message.bot_id === undefined || message.thread_ts === undefined) continue;
      const id = `${channel} ${message.thread_ts}`;
      byThread.set(id, [...(byThread.get(id) ?? []), message]);
    }
  }
  return byThread;
}

/** Emulator runs by the reference line in their prompt. */
function runsByReference() {
  const byRef = new Map<string, ReturnType<RunningEmulator['engine']['list']>['runs']>();
  for (const run of emulator.engine.list({ limit: 100_000 }).runs) {
    const ref = /\(agent-bridge ref [0-9a-f]+\)/.exec(run.prompt ?? '')?.[0] ?? '(none)';
    byRef.set(ref, [...(byRef.get(ref) ?? []), run]);
  }
  return byRef;
}

const endReaction = (outcome: Outcome) => (outcome === 'fail' || outcome === 'error' ? 'x' : 'white_check_mark');
const announcements = (posts: FakeMessage[]) => posts.filter((post) => metadataKey(post)?.endsWith(':announce'));

/** True once the mention's run ended and its thread shows every announcement and the end reaction. */
function settled(mention: Mention, runs: ReturnType<typeof runsByReference>, byThread: Map<string, FakeMessage[]>): boolean {
  const run = runs.get(mention.reference)?.[0];
  if (!run || !isTerminalState(run.state)) return false;
  const posts = byThread.get(`${mention.channel} ${mention.ts}`) ?? [];
  if (announcements(posts).length < ANNOUNCED[mention.outcome].length) return false;
  return slack.reactions(mention.channel, mention.ts).includes(endReaction(mention.outcome));
}

interface Scenario {
  label: string;
  processes: number;
  kills: number;
}

async function crashBurst(scenario: Scenario): Promise<void> {
  const seed = stressSeed();
  const random = seededRandom(seed);
  const pickRandom = seededRandom(seed ^ 0x5bd1e995);
  console.log(`[crash-burst] ${scenario.label}: seed ${seed} (replay with STRESS_SEED=${seed})`);
  const began = Date.now();
  for (const channel of CHANNELS) slack.setChannel(channel, { name: channel.toLowerCase() });
  slack.setUser(SLACK_IDS.user, { display_name: 'ada' });

  const cwd = tempDir('agent-bridge-stress-');
  workDir = cwd;
  writeFileSync(join(cwd, 'agent-bridge.yml'), 'tracker:\n  interval: 1s\n');
  const db = join(cwd, 'bridge.db');
  pool = new BridgePool({
    size: scenario.processes,
    cwd,
    env: {
      AGENT_API_BASE_URL: emulator.baseUrl,
      AGENT_API_KEY: API_KEY,
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_API_URL: slack.url,
      DATABASE_PATH: db,
      PORT: '0',
      HOST: '127.0.0.1',
      // info: the children's logs say when a crashed create was adopted (counted in the summary).
      LOG_LEVEL: 'info',
      LEASE_MS: '3000',
    },
  });
  const bridges = pool;

  // The whole plan comes from the seed: outcomes, channels, redeliveries, kill moments, victims, downtimes.
  const mentions: Mention[] = Array.from({ length: MENTIONS }, (_, index) => {
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
  const killPlan = Array.from({ length: scenario.kills }, (_, k) => ({
    atMs: Math.round((BURST_MS * (k + 0.15 + 0.7 * random())) / scenario.kills),
    slot: Math.floor(random() * scenario.processes),
    downMs: Math.round(100 + 500 * random()),
  }));

  let kills = 0;
  // One after the other: two processes creating a new database file at the same moment is its own
  // test (concurrent-open.test.ts); here the first creates it, the others join.
  for (const index of bridges.slots.keys()) await bridges.start(index);
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
      const runs = runsByReference();
      const byThread = threads();
      for (const mention of mentions) {
        if (mention.settledAt !== undefined) continue;
        if (settled(mention, runs, byThread)) {
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

  const unsettled = () => {
    const runs = runsByReference();
    const byThread = threads();
    const open = mentions.filter((mention) => !settled(mention, runs, byThread));
    const sample = open.slice(0, 3).map((m) => ({
      i: m.index,
      outcome: m.outcome,
      acked: m.acked,
      runs: runs.get(m.reference)?.map((r) => r.state),
      posts: (byThread.get(`${m.channel} ${m.ts}`) ?? []).map((p) => metadataKey(p)),
      reactions: slack.reactions(m.channel, m.ts),
    }));
    return `${open.length} mentions unsettled, e.g. ${JSON.stringify(sample)}\nkills so far: ${kills}\n${bridges.tails()}`;
  };
  let burstMs = 0;
  let settledAt = 0;
  try {
    await Promise.all([sender, killer]);
    burstMs = Date.now() - t0;
    await until(
      () => mentions.every((mention) => mention.settledAt !== undefined),
      'every run to end and every thread to show its end',
      Math.max(1_000, deadline - Date.now()),
      unsettled,
      100,
    );
    settledAt = Date.now();
  } finally {
    watching = false;
    await watcher;
  }
  await bridges.stopAll();

  // ---- The service's own books, read after the last process stopped. ----
  const store = openSqliteStore({ path: db });
  const outbox = await store.outbox.counts();
  const failedRows = (await store.outbox.list({ state: 'failed' })).map((row) => `${row.key}: ${row.lastError ?? ''}`);
  const triggerStates = await store.triggers.countByState();
  const stillTracked = await store.trackedRuns.countTracked();
  const triggerRuns = new Map<string, string | undefined>();
  let triggersReclaimed = 0;
  for (const mention of mentions) {
    const trigger = await store.triggers.getByKey(mention.key);
    triggerRuns.set(mention.key, trigger?.runId ?? undefined);
    if ((trigger?.attempts ?? 0) > 1) triggersReclaimed++;
  }
  // Rows claimed more than once: their first holder died (or its lease ran out) before recording the outcome.
  const rowsRedelivered = (await store.outbox.list()).filter((row) => row.attempts > 1).length;
  await store.close();

  // ---- What people saw: the fake Slack API's record. ----
  const runs = runsByReference();
  const byThread = threads();
  const postCalls = slack.callsTo('chat.postMessage');
  const postsPerThread = new Map<string, number>();
  for (const call of postCalls) {
    const id = `${String(call.args['channel'])} ${String(call.args['thread_ts'])}`;
    postsPerThread.set(id, (postsPerThread.get(id) ?? 0) + 1);
  }
  const reactionCalls = [...slack.callsTo('reactions.add'), ...slack.callsTo('reactions.remove')].sort((a, b) => a.seq - b.seq);
  const problems: string[] = [];
  for (const mention of mentions) {
    const where = `mention ${mention.index} (${mention.outcome}, ${mention.channel} ${mention.ts})`;
    const found = runs.get(mention.reference) ?? [];
    if (found.length !== 1) problems.push(`${where}: ${found.length} runs`);
    const run = found[0];
    if (run && triggerRuns.get(mention.key) !== run.run_id)
      problems.push(`${where}: trigger names run ${triggerRuns.get(mention.key)}, emulator has ${run.run_id}`);
    const expectedEnd = mention.outcome === 'fail' ? 'FAILED' : mention.outcome === 'error' ? 'ERROR' : 'SUCCEEDED';
    if (run && run.state !== expectedEnd) problems.push(`${where}: run ended ${run.state}, expected ${expectedEnd}`);

    const posts = byThread.get(`${mention.channel} ${mention.ts}`) ?? [];
    const statusPosts = posts.filter((post) => metadataKey(post) === receivedKey(mention.key, mention.destination));
    if (statusPosts.length !== 1) problems.push(`${where}: ${statusPosts.length} status messages`);
    const replacements = posts.filter((post) => post.metadata?.event_payload['status_of'] !== undefined);
    if (replacements.length > 0) problems.push(`${where}: ${replacements.length} replacement status messages`);
    const finalStatus = JSON.stringify(statusPosts[0]?.blocks ?? []);
    const endLabel = { SUCCEEDED: 'Succeeded', FAILED: 'Failed', ERROR: 'Error' }[expectedEnd];
    if (statusPosts[0] && !finalStatus.includes(endLabel)) problems.push(`${where}: status message does not show ${endLabel}`);
    const announced = announcements(posts).map(announcedState);
    if (JSON.stringify(announced) !== JSON.stringify(ANNOUNCED[mention.outcome]))
      problems.push(`${where}: announced ${JSON.stringify(announced)}, expected ${JSON.stringify(ANNOUNCED[mention.outcome])}`);
    const keys = posts.map(metadataKey);
    if (new Set(keys).size !== keys.length || keys.includes(undefined)) problems.push(`${where}: posts with repeated or missing keys ${JSON.stringify(keys)}`);
    const expectedPosts = 1 + ANNOUNCED[mention.outcome].length;
    const calls = postsPerThread.get(`${mention.channel} ${mention.ts}`) ?? 0;
    if (posts.length !== expectedPosts || calls !== expectedPosts)
      problems.push(`${where}: ${posts.length} posts in the thread from ${calls} chat.postMessage calls, expected ${expectedPosts}`);

    const reactions = slack.reactions(mention.channel, mention.ts);
    if (JSON.stringify(reactions) !== JSON.stringify([endReaction(mention.outcome)])) problems.push(`${where}: reactions ${JSON.stringify(reactions)}`);
    const mine = reactionCalls.filter((call) => call.args['timestamp'] === mention.ts && call.args['channel'] === mention.channel && call.response?.ok);
    const order = mine.map((call) => `${call.method === 'reactions.add' ? '+' : '-'}${String(call.args['name'])}`).join(' ');
    if (order !== `+eyes -eyes +${endReaction(mention.outcome)}`) problems.push(`${where}: reaction changes ${order}`);
  }
  const strayRuns = emulator.engine.list({ limit: 100_000 }).runs.length - MENTIONS;
  if (strayRuns !== 0) problems.push(`${strayRuns} runs beyond one per mention`);
  const bareChannelPosts = postCalls.filter((call) => call.args['thread_ts'] === undefined).length;
  if (bareChannelPosts !== 0) problems.push(`${bareChannelPosts} posts outside a thread`);

  const statusPostCount = MENTIONS;
  const announceCount = mentions.reduce((sum, mention) => sum + ANNOUNCED[mention.outcome].length, 0);
  const latencies = mentions.map((m) => ((m.settledAt ?? Number.NaN) - (m.ackedAt ?? Number.NaN)) / 1000).sort((a, b) => a - b);
  const quantile = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!.toFixed(1);
  const eyesAt = new Map<string, number>();
  for (const call of slack.callsTo('reactions.add')) {
    const id = `${String(call.args['channel'])} ${String(call.args['timestamp'])}`;
    if (call.args['name'] === 'eyes' && !eyesAt.has(id)) eyesAt.set(id, call.at);
  }
  const eyesLatencies = mentions.map((m) => ((eyesAt.get(`${m.channel} ${m.ts}`) ?? Number.NaN) - (m.ackedAt ?? Number.NaN)) / 1000).sort((a, b) => a - b);
  const eyesQuantile = (q: number) => eyesLatencies[Math.min(eyesLatencies.length - 1, Math.floor(q * eyesLatencies.length))]!.toFixed(1);
  const createdAt = (m: Mention) => Date.parse(runs.get(m.reference)?.[0]?.created_at ?? '');
  const runLatencies = mentions.map((m) => (createdAt(m) - (m.ackedAt ?? Number.NaN)) / 1000).sort((a, b) => a - b);
  const runQuantile = (q: number) => runLatencies[Math.min(runLatencies.length - 1, Math.floor(q * runLatencies.length))]!.toFixed(1);
  const logLines = bridges.started.flatMap((child) => child.output.stdout.split('\n').filter((line) => line.startsWith('{')));
  const logged = (pattern: RegExp) => logLines.filter((line) => pattern.test(line)).length;
  const adopted = logged(/adopted the run an earlier attempt created/);
  const errorLines = logLines.filter((line) => /"level":(50|60)/.test(line));
  const deliveries = sumReports(mentions.flatMap((mention) => (mention.delivery ? [mention.delivery] : [])));
  const failedDeliveries =
    Object.entries(deliveries.failures)
      .map(([reason, count]) => `${reason} ${count}`)
      .join(', ') || 'none';
  console.log(
    `[crash-burst] ${scenario.label}: processes=${scenario.processes} mentions=${MENTIONS} kills=${kills} runs=${emulator.engine.list({ limit: 100_000 }).runs.length} ` +
      `posts=${postCalls.length} (status ${statusPostCount}, blocked+end ${announceCount}) edits=${slack.callsTo('chat.update').length} ` +
      `reaction-calls=${reactionCalls.length} slack-deliveries=${deliveries.attempts} (failed: ${failedDeliveries}; redelivered ${mentions.filter((m) => m.redelivered).length}) ` +
      `crash-recoveries: triggers=${triggersReclaimed} (runs adopted ${adopted}) outbox-rows=${rowsRedelivered} log-errors=${errorLines.length} ` +
      `ack-to-eyes p50=${eyesQuantile(0.5)}s p95=${eyesQuantile(0.95)}s max=${eyesQuantile(1)}s ` +
      `ack-to-run p50=${runQuantile(0.5)}s p95=${runQuantile(0.95)}s ack-to-end p50=${quantile(0.5)}s p95=${quantile(0.95)}s max=${quantile(1)}s processes-started=${bridges.started.length} burst=${(burstMs / 1000).toFixed(1)}s settle=${((settledAt - t0 - burstMs) / 1000).toFixed(1)}s duration=${((Date.now() - began) / 1000).toFixed(1)}s seed=${seed}`,
  );

  if (errorLines.length > 0) console.log(`[crash-burst] ${scenario.label}: error log lines:\n${errorLines.slice(0, 10).join('\n')}`);
  expect(kills).toBe(scenario.kills);
  expect(problems, `${problems.length} problems; seed ${seed}`).toEqual([]);
  expect(outbox).toMatchObject({ pending: 0, sending: 0, failed: 0 });
  expect(failedRows).toEqual([]);
  expect(triggerStates).toMatchObject({ done: MENTIONS, pending: 0, working: 0, failed: 0, ignored: 0 });
  expect(stillTracked).toBe(0);
}

describe('a burst of Slack mentions while the service is SIGKILLed and restarted on its database', () => {
  it('one process, killed 4 times: one run per mention, every state announced once', { timeout: 75_000 }, async () => {
    await crashBurst({ label: 'one process', processes: 1, kills: 4 });
  });

  it('two processes on one SQLite file, killed 3 times one at a time: still exactly once', { timeout: 75_000 }, async () => {
    await crashBurst({ label: 'two processes', processes: 2, kills: 3 });
  });
});
