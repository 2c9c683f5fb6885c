/**
 * Work keeps pace under a flood: 100 concurrent senders of signed Slack mentions for 10 s
 * against one process or three replicas, then silence while the backlog drains. Measured beside the
 * acknowledgement rate of the same run: triggers worked per second while flooded (the run created,
 * counted by the emulator; the status message edited to show it, counted by the fake Slack API), and
 * the rate at which the backlog left at the flood's end is worked off afterwards.
 */
import { SLACK_SECRET } from './bench-service.js';
import { phase } from './bench-options.js';
import { withOutside } from './intake.js';
import type { LoadResult, WorldSeen } from './outside.js';
import type { Outside } from './outside-client.js';
import { startReplicas, type Engine, type Progress, type ReplicaSet } from './replicas.js';
import { sleep, type Figure, type Section } from './report.js';

export const FLOOD_CONNECTIONS = 100;
const floodSeconds = () => phase(10, 3);
/** The drain is watched this long at most; the rate is what it worked meanwhile. */
const drainLimitSeconds = () => phase(20, 6);
export const WORKED_TARGET = 100;
const SAMPLE_MS = 1_000;

interface Sample {
  at: number;
  progress: Progress;
  seen: WorldSeen;
}

export interface FloodResult {
  label: string;
  acks: LoadResult;
  /** Per second while flooded: triggers finished, runs created, status messages posted, and edited to show their run. */
  flooded: Rates;
  /** The backlog at the flood's end (triggers stored and not finished). */
  backlog: number;
  /** Worked per second after the flood, until the backlog was gone or the drain limit. */
  drain: Rates & { seconds: number; emptied: boolean; left: number; owed: number };
  /** CPU while flooded, in % of one core: all replicas together, the fakes and emulator, the load generator. */
  cpuPct: { replicas: number; world: number; load: number };
  samples: Sample[];
}

interface Rates {
  worked: number;
  runs: number;
  posted: number;
  edits: number;
}

const edits = (seen: WorldSeen) => seen.slack['chat.update'] ?? 0;
const posts = (seen: WorldSeen) => seen.slack['chat.postMessage'] ?? 0;
const failures = (result: LoadResult) => Object.values(result.other).reduce((sum, n) => sum + n, 0) + result.errors + result.timeouts;

/** Rates between two samples, per second. */
function rates(from: Sample, to: Sample): Rates {
  const seconds = (to.at - from.at) / 1000;
  return {
    worked: (to.progress.worked - from.progress.worked) / seconds,
    runs: (to.seen.runsCreated - from.seen.runsCreated) / seconds,
    posted: (posts(to.seen) - posts(from.seen)) / seconds,
    edits: (edits(to.seen) - edits(from.seen)) / seconds,
  };
}

/** Floods the replicas of `set` (fresh, on one database), then watches the backlog drain. */
export async function floodOn(set: ReplicaSet, load: Outside, world: Outside, secret: string, label: string): Promise<FloodResult> {
  const samples: Sample[] = [];
  const sample = async (): Promise<Sample> => {
    const [progress, seen] = await Promise.all([set.progress(), world.seen()]);
    const taken = { at: Date.now(), progress, seen };
    samples.push(taken);
    return taken;
  };
  const cpuBefore = await set.cpuMs();
  const worldBefore = (await world.stats()).cpuMs;
  const start = await sample();
  const flooding = load.load({ kind: 'slack', url: set.urls, secret, connections: FLOOD_CONNECTIONS, seconds: floodSeconds() });
  let done = false;
  void flooding.finally(() => (done = true)).catch(() => {});
  while (!done) {
    await Promise.race([sleep(SAMPLE_MS), flooding.catch(() => {})]);
    if (!done) await sample();
  }
  const acks = await flooding;
  const end = await sample();
  const cpuFlood = (await set.cpuMs()) - cpuBefore;
  const worldFlood = (await world.stats()).cpuMs - worldBefore;
  const backlog = end.progress.stored - end.progress.worked;
  let last = end;
  const drainLimit = end.at + drainLimitSeconds() * 1000;
  while (Date.now() < drainLimit) {
    await sleep(Math.min(SAMPLE_MS / 4, Math.max(0, drainLimit - Date.now())));
    last = await sample();
    if (last.progress.worked >= last.progress.stored && last.progress.owed === 0) break;
  }
  const pct = (cpuMs: number) => cpuMs / (10 * ((end.at - start.at) / 1000));
  const left = last.progress.stored - last.progress.worked;
  const drained = rates(end, last);
  return {
    label,
    acks,
    flooded: rates(start, end),
    backlog,
    drain: { ...drained, seconds: (last.at - end.at) / 1000, emptied: left === 0 && last.progress.owed === 0, left, owed: last.progress.owed },
    cpuPct: { replicas: pct(cpuFlood), world: pct(worldFlood), load: pct(acks.cpuMs) },
    samples,
  };
}

/** The figures of one flood: the work rates beside the acknowledgement rate of the same run. */
export function floodFigures(section: string, result: FloodResult): Figure[] {
  const ackRate = result.acks.ok / result.acks.seconds;
  const ack = { label: 'acknowledged/s, same run', value: ackRate };
  const floodedRate = Math.min(result.flooded.worked, result.flooded.runs, result.flooded.posted);
  const drainRate = Math.min(result.drain.worked, result.drain.runs, result.drain.posted);
  return [
    { section, name: `${result.label}: acknowledged/s while flooded`, value: ackRate, unit: '/s' },
    {
      section,
      name: `${result.label}: worked/s while flooded`,
      value: floodedRate,
      unit: '/s',
      baseline: ack,
      target: { text: `≥ ${WORKED_TARGET}/s`, met: floodedRate >= WORKED_TARGET },
    },
    {
      section,
      name: `${result.label}: worked/s draining the backlog after`,
      value: drainRate,
      unit: '/s',
      baseline: ack,
      target: { text: `≥ ${WORKED_TARGET}/s`, met: drainRate >= WORKED_TARGET || (result.drain.emptied && result.backlog === 0) },
    },
  ];
}

interface FloodConfig {
  engine: Engine;
  replicas: number;
  label: string;
}

const FLOOD_CONFIGS: FloodConfig[] = [
  { engine: 'sqlite', replicas: 1, label: 'SQLite, 1 process' },
  { engine: 'postgres', replicas: 1, label: 'PostgreSQL, 1 replica' },
  { engine: 'postgres', replicas: 3, label: 'PostgreSQL, 3 replicas' },
];

const fixed = (value: number) => (Number.isFinite(value) ? value.toFixed(0) : 'n/a');

/** The flood section: each configuration on freshly started replicas and a fresh database. */
export function floodSection(): Promise<Section> {
  return withOutside('slack', async ({ load, world, urls }) => {
    const results: FloodResult[] = [];
    for (const config of FLOOD_CONFIGS) {
      const set = await startReplicas(config.engine, config.replicas, urls);
      try {
        results.push(await floodOn(set, load, world, SLACK_SECRET, config.label));
      } finally {
        await set.stop();
      }
    }
    const describe = (result: FloodResult) => {
      const { acks, flooded, drain } = result;
      return (
        `${result.label}: ${acks.ok.toLocaleString('en-US')} acknowledged in ${acks.seconds.toFixed(1)} s (p50 ${acks.latency.p50.toFixed(0)} / p99 ${acks.latency.p99.toFixed(0)} / max ${acks.latency.max.toFixed(0)} ms${failures(acks) ? `, ${failures(acks)} NOT 2xx or failed` : ', every answer 2xx'}); ` +
        `while flooded per second: ${fixed(flooded.worked)} triggers finished, ${fixed(flooded.runs)} runs created, ${fixed(flooded.posted)} status messages posted, ${fixed(flooded.edits)} edited to show their run; ` +
        `backlog at the end ${result.backlog.toLocaleString('en-US')} triggers; after it, over ${drain.seconds.toFixed(1)} s: ${fixed(drain.worked)} finished/s, ${fixed(drain.runs)} runs/s, ${fixed(drain.posted)} posted/s, ${fixed(drain.edits)} edits/s, ` +
        (drain.emptied
          ? 'everything worked and delivered'
          : `${drain.left.toLocaleString('en-US')} triggers and ${drain.owed.toLocaleString('en-US')} messages still owed at the limit`) +
        `; CPU while flooded (% of one core): replicas ${fixed(result.cpuPct.replicas)}, fakes+emulator ${fixed(result.cpuPct.world)}, load generator ${fixed(result.cpuPct.load)}.`
      );
    };
    return {
      title: 'Flood: work keeps pace',
      figures: results.flatMap((result) => floodFigures('Flood', result)),
      notes: [
        `${FLOOD_CONNECTIONS} concurrent senders of signed Slack app_mention events (autocannon, its connections spread over the replicas in turn) for ${floodSeconds()} s, then nothing while the backlog drains (watched ${drainLimitSeconds()} s at most). Each configuration runs on freshly started replicas (separate processes) and a fresh database. Progress is sampled every second from the database (triggers finished) and from the fakes (runs created by the emulator, status messages posted and edited on the fake Slack API).`,
        `"worked" = a run created and its status message posted: the lowest of triggers finished, runs created and status messages posted per second. The outbox delivers in order of storing, so a status message's edit to show its run waits behind the "received" messages of every mention acknowledged before that run was created: edits are shown, without a target.`,
        ...results.map(describe),
      ],
    };
  });
}
