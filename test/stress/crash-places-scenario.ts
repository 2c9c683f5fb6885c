/**
 * The crash scenario with two places: runs that one request starts and two places carry,
 * asked for while the service's processes (real children, as in crash-burst-scenario.ts) are SIGKILLed
 * at seeded random moments and restarted on the same SQLite file. Half the runs come from Linear — an
 * issue gains a label whose route names `slack_channel`, so the run has the issue and a new top-level
 * Slack message with its thread — and half from Slack — a mention naming the issue with
 * `slack.link_linear_issues: true`, so the run has the thread and the issue. Linear redelivers what got
 * no 200 (and sometimes what did, under a new delivery id), Slack likewise. Runs end through the
 * emulator (succeed, fail, error, or block until the test answers once both places say so). At the end
 * each place of each run shows its status message or start comment once and each BLOCKED / end state
 * once, in order, naming the same run — counted on the fakes (crash-places-checks.ts).
 */
import { randomUUID } from 'node:crypto';
import { afterEach, expect } from 'vitest';
import { referenceLine } from '../../src/core/ports/triggers.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { messageKey } from '../../src/slack/normalise.js';
import { startFakeLinearApi, type FakeLinearApi } from '../fakes/linear-api.js';
import type { FakeSlackApi } from '../fakes/slack-api.js';
import { LINEAR_IDS, labelAdded, linearDelivery, type LinearEnvelopeFixture } from '../fixtures/linear/index.js';
import { appMention, eventCallback } from '../fixtures/slack/events.js';
import { SLACK_IDS, nextTs } from '../fixtures/slack/ids.js';
import { SECRET, useBurstFixtures } from './burst-fixtures.js';
import { CHANNELS, DIRECTIVE, errorLines, type Outcome } from './crash-burst-checks.js';
import { prepareSlack, startPool } from './crash-burst-scenario.js';
import {
  deliverLikeSlack,
  planKills,
  runKills,
  seededRandom,
  sleep,
  stressSeed,
  sumReports,
  until,
  type BridgePool,
  type DeliveryReport,
} from './crash-harness.js';
import { PlacesSnapshot, type PlacesRun } from './crash-places-checks.js';
import { verifyPlaces } from './crash-places-verify.js';
import { PLATFORM_GIVES_UP_MS, WORK_BUDGET_MS } from './promises.js';

/** Runs asked for in each place (Linear labels, Slack mentions). */
export const RUNS_PER_PLACE = 30;
/** The requests are spread evenly over this long. */
export const BURST_MS = 6_000;

const LINEAR_SECRET = 'stress-linear-webhook-secret-0123456789';
const LINEAR_KEY = 'lin_api_stress_0123456789abcdef';
/** The label routes: each names the Slack channel its runs are also carried in. */
const LABELS = [
  { label: LINEAR_IDS.labels.agent, channel: CHANNELS[0]! },
  { label: LINEAR_IDS.labels.agentWeb, channel: CHANNELS[1]! },
];
const YAML = `tracker:
  interval: 1s
slack:
  link_linear_issues: true
linear:
  labels:
${LABELS.map(({ label, channel }) => `    ${label.name}: { slack_channel: ${channel} }`).join('\n')}
`;
/** Every label event says the issue was updated at this moment (the label trigger's key includes it: linear/normalise.ts). */
const UPDATED_AT = '2026-11-26T06:00:00.000Z';

export interface CrashPlacesScenario {
  label: string;
  processes: number;
  kills: number;
}

/** Registers the suite's fixtures (the burst's, and a fake Linear API per test); returns the scenario runner. */
export function useCrashPlaces(): (scenario: CrashPlacesScenario) => Promise<void> {
  const fixtures = useBurstFixtures();
  let linear: FakeLinearApi | undefined;
  afterEach(async () => {
    await linear?.close();
    linear = undefined;
  });
  return async (scenario) => {
    linear = await startFakeLinearApi({ authorization: LINEAR_KEY, labels: [...LABELS.map(({ label }) => label), LINEAR_IDS.labels.bug] });
    const { pool, openBooks } = await fixtures.newPool({
      size: scenario.processes,
      database: { kind: 'sqlite' },
      yaml: YAML,
      env: { LINEAR_API_KEY: LINEAR_KEY, LINEAR_WEBHOOK_SECRET: LINEAR_SECRET, LINEAR_API_URL: linear.url },
    });
    await crashPlaces({ scenario, slack: fixtures.slack, linear, emulator: fixtures.emulator, pool, openBooks });
  };
}

/** The runs of a scenario: where each is asked for, its issue, outcome, channel and redelivery, drawn from `random`. */
export function planRuns(random: () => number, linear: FakeLinearApi): PlacesRun[] {
  return Array.from({ length: 2 * RUNS_PER_PLACE }, (_, index) => {
    const roll = random();
    const outcome: Outcome = roll < 0.1 ? 'fail' : roll < 0.2 ? 'error' : roll < 0.35 ? 'block' : roll < 0.5 ? 'pr' : 'succeed';
    const asked = index % 2 === 0 ? 'linear' : 'slack';
    const identifier = `ENG-${7000 + index}`;
    const issue = {
      id: randomUUID(),
      identifier,
      title: `Places task ${index}`,
      url: `https://linear.app/${LINEAR_IDS.workspace}/issue/${identifier}`,
      team: { id: LINEAR_IDS.team.id, key: 'ENG' },
    };
    linear.addIssue(issue);
    const redelivered = random() < 0.05;
    if (asked === 'linear') {
      const route = LABELS[Math.floor(random() * LABELS.length)]!;
      const key = `linear:label:${issue.id}:${route.label.id}:${UPDATED_AT}`;
      return { index, asked, outcome, issue, channel: route.channel, key, reference: referenceLine(key), redelivered, acked: false, released: false };
    }
    const channel = CHANNELS[Math.floor(random() * CHANNELS.length)]!;
    const mentionTs = nextTs();
    const key = messageKey(channel, mentionTs);
    return { index, asked, outcome, issue, channel, key, reference: referenceLine(key), mentionTs, redelivered, acked: false, released: false };
  });
}

/** The Linear webhook of a label run: the issue gains the route's label (its description carries the outcome's directive). */
function labelEnvelope(run: PlacesRun, now: number): LinearEnvelopeFixture {
  const label = LABELS.find(({ channel }) => channel === run.channel)!.label;
  const { issue } = run;
  const description = `Stress task ${run.index}.${DIRECTIVE[run.outcome] ? `\n\n${DIRECTIVE[run.outcome].trim()}` : ''}`;
  return labelAdded(
    label,
    [LINEAR_IDS.labels.bug],
    { id: issue.id, identifier: issue.identifier, title: issue.title, url: issue.url, description, updatedAt: UPDATED_AT },
    { now },
  );
}

/** The Slack mention of a Slack run: it names the issue, and carries the outcome's directive. */
function mentionEnvelope(run: PlacesRun) {
  const text = `<@${SLACK_IDS.botUser}> stress task ${run.index} about ${run.issue.identifier}${DIRECTIVE[run.outcome]}`;
  return { text, envelope: eventCallback(appMention({ channel: run.channel, ts: run.mentionTs!, text })) };
}

/**
 * Delivers one Linear webhook as Linear does: POST it signed (stamped anew at each attempt), and while
 * the answer is not a 200 within 5 s, again under the same delivery id to whichever process is up.
 */
export async function deliverLikeLinear(
  pool: BridgePool,
  envelope: (now: number) => LinearEnvelopeFixture,
  options: { pick: (urls: string[]) => string; deadline: number; deliveryId: string },
): Promise<DeliveryReport> {
  const report: DeliveryReport = { attempts: 0, failures: {} };
  for (let retry = 0; ; retry++) {
    if (Date.now() > options.deadline) throw new Error(`Linear webhook not delivered before the deadline after ${report.attempts} attempts`);
    report.attempts++;
    const { body, headers } = linearDelivery(LINEAR_SECRET, envelope(Date.now()), { deliveryId: options.deliveryId });
    const post = async (): Promise<string> => {
      try {
        const response = await fetch(`${options.pick(pool.targets())}/linear/webhook`, { method: 'POST', headers, body });
        await response.arrayBuffer();
        return response.status === 200 ? 'ok' : `status ${response.status}`;
      } catch {
        return 'refused';
      }
    };
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<string>((resolve) => (timer = setTimeout(() => resolve('timeout'), 5_000)));
    const outcome = await Promise.race([post(), timeout]).finally(() => clearTimeout(timer));
    if (outcome === 'ok') return report;
    report.failures[outcome] = (report.failures[outcome] ?? 0) + 1;
    await sleep(Math.min(1_000, 200 * 2 ** retry));
  }
}

/** Both platforms' side of the burst: each request at its moment, redelivered until answered (and sometimes after). */
function sendRequests(
  fixtures: { slack: FakeSlackApi; pool: BridgePool },
  runs: readonly PlacesRun[],
  timing: { t0: number; pick: (urls: string[]) => string },
): Promise<void> {
  const { slack, pool } = fixtures;
  const { t0, pick } = timing;
  return Promise.all(
    runs.map(async (run) => {
      await sleep(t0 + (run.index * BURST_MS) / runs.length - Date.now());
      // The platform gives a request up after its retries: until then the service may be down and back.
      const deadline = Date.now() + PLATFORM_GIVES_UP_MS;
      const reports: DeliveryReport[] = [];
      if (run.asked === 'linear') {
        const envelope = (now: number) => labelEnvelope(run, now);
        reports.push(await deliverLikeLinear(pool, envelope, { pick, deadline, deliveryId: randomUUID() }));
        run.ackedAt = Date.now();
        // Linear sends the same change again under a new delivery id.
        if (run.redelivered) reports.push(await deliverLikeLinear(pool, envelope, { pick, deadline, deliveryId: randomUUID() }));
      } else {
        const { text, envelope } = mentionEnvelope(run);
        slack.addUserMessage({ channel: run.channel, user: SLACK_IDS.user, text, ts: run.mentionTs! });
        reports.push(await deliverLikeSlack(pool, SECRET, envelope, { pick, deadline }));
        run.ackedAt = Date.now();
        if (run.redelivered) reports.push(await deliverLikeSlack(pool, SECRET, envelope, { pick, deadline, firstRetryNum: 1 }));
      }
      run.delivery = sumReports(reports);
      run.acked = true;
    }),
  ).then(() => undefined);
}

/** The people in both places: they note when a run's places show its end, and answer a BLOCKED run once both places say so. */
function watchPlaces(look: () => PlacesSnapshot, emulator: RunningEmulator, runs: readonly PlacesRun[]): { stop(): Promise<void> } {
  let watching = true;
  const watcher = (async () => {
    while (watching) {
      const snapshot = look();
      for (const run of runs) {
        if (run.settledAt !== undefined) continue;
        if (snapshot.settled(run)) {
          run.settledAt = Date.now();
          continue;
        }
        if (run.outcome !== 'block' || run.released) continue;
        const found = snapshot.run(run);
        if (found?.state !== 'BLOCKED' || !snapshot.blockedShown(run)) continue;
        emulator.engine.drive(found.run_id, 'SUCCEEDED', { artifacts: [] });
        run.released = true;
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

interface PlacesRunContext {
  scenario: CrashPlacesScenario;
  slack: FakeSlackApi;
  linear: FakeLinearApi;
  emulator: RunningEmulator;
  pool: BridgePool;
  openBooks: Parameters<typeof verifyPlaces>[0]['openBooks'];
}

async function crashPlaces({ scenario, slack, linear, emulator, pool, openBooks }: PlacesRunContext): Promise<void> {
  const seed = stressSeed();
  const random = seededRandom(seed);
  const pickRandom = seededRandom(seed ^ 0x5bd1e995);
  console.log(`[crash-places] ${scenario.label}: seed ${seed} (replay with STRESS_SEED=${seed})`);
  const began = Date.now();
  prepareSlack(slack);
  const look = () => new PlacesSnapshot(slack, linear, emulator, CHANNELS);

  // The whole plan comes from the seed: places, outcomes, channels, redeliveries, kill moments, victims, downtimes.
  const runs = planRuns(random, linear);
  const killPlan = planKills(scenario.kills, scenario.processes, BURST_MS, random);

  await startPool(pool, { kind: 'sqlite' });
  const t0 = Date.now();
  const pick = (urls: string[]) => urls[Math.floor(pickRandom() * urls.length)]!;
  const sender = sendRequests({ slack, pool }, runs, { t0, pick });
  const { done: killer, kills, restartMs } = runKills(pool, killPlan, t0);
  const watcher = watchPlaces(look, emulator, runs);

  let burstMs: number;
  let settledAt: number;
  try {
    await Promise.all([sender, killer]).catch((error: unknown) => {
      // A request Slack or Linear could not deliver in time: say how long the restarts took (a busy machine makes them slow).
      const restarts = restartMs.map((ms) => (ms / 1000).toFixed(1)).join(', ') || 'none yet';
      throw new Error(`${error instanceof Error ? error.message : String(error)}; kills so far ${kills()}, restarts took ${restarts} s`);
    });
    burstMs = Date.now() - t0;
    await until(
      () => runs.every((run) => run.settledAt !== undefined),
      'every run to end and both of its places to show its end',
      WORK_BUDGET_MS,
      () => `${look().unsettled(runs)}\nkills so far: ${kills()}\n${pool.tails()}`,
      100,
    );
    settledAt = Date.now();
  } finally {
    await watcher.stop();
  }
  await pool.stopAll();

  expect(kills()).toBe(scenario.kills);
  const slowestRestart = (Math.max(0, ...restartMs) / 1000).toFixed(1);
  const timing = `burst=${(burstMs / 1000).toFixed(1)}s (slowest restart ${slowestRestart}s) settle=${((settledAt - t0 - burstMs) / 1000).toFixed(1)}s duration=${((Date.now() - began) / 1000).toFixed(1)}s`;
  const errors = errorLines(pool);
  if (errors.length > 0) console.log(`[crash-places] ${scenario.label}: error log lines:\n${errors.slice(0, 10).join('\n')}`);
  await verifyPlaces({ label: scenario.label, seed, snapshot: look(), pool, openBooks }, runs, `processes=${scenario.processes} kills=${kills()} ${timing}`);
}
