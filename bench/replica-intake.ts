/**
 * Slack intake acknowledgements with 1, 2 and 3 replicas on PostgreSQL against one SQLite process, in
 * the same run: every configuration runs as separate processes (bench/replicas.ts) on a
 * fresh database, the load generator spreading its connections over the replicas in turn. Each
 * concurrency level and the fixed 500/s rate get freshly started replicas, so no level inherits the
 * backlog of the one before.
 */
import { SLACK_SECRET } from './bench-service.js';
import { phase } from './bench-options.js';
import { withOutside } from './intake.js';
import type { LoadResult, WorldUrls } from './outside.js';
import type { Outside } from './outside-client.js';
import { startReplicas, type Engine, type Progress } from './replicas.js';
import { sleep, type Figure, type Section } from './report.js';

const SECTION = 'Replicas: Slack intake';
const RATE = 500;
const RATE_CONNECTIONS = 10;
const P99_TARGET_MS = 50;
const SHARE_TARGET = 2;
/** Requests that warm each fresh set of replicas (JIT, pools) before it is measured. */
const WARMUP_REQUESTS = 300;
/** How long the warm-up's triggers may take to be worked before the measurement starts anyway. */
const SETTLE_LIMIT_MS = 15_000;

interface Config {
  engine: Engine;
  replicas: number;
  label: string;
}

const CONFIGS: Config[] = [
  { engine: 'sqlite', replicas: 1, label: 'SQLite, 1 process' },
  { engine: 'postgres', replicas: 1, label: 'PostgreSQL, 1 replica' },
  { engine: 'postgres', replicas: 2, label: 'PostgreSQL, 2 replicas' },
  { engine: 'postgres', replicas: 3, label: 'PostgreSQL, 3 replicas' },
];

interface Run {
  connections: number;
  rate?: number;
  result: LoadResult;
  progress: Progress;
  /** CPU of all replicas while the load ran, in % of one core. */
  cpuPct: number;
}

const perSecond = (result: LoadResult) => result.ok / result.seconds;
const failures = (result: LoadResult) => Object.values(result.other).reduce((sum, n) => sum + n, 0) + result.errors + result.timeouts;

async function measure(config: Config, world: WorldUrls, load: Outside, connections: number, seconds: number, rate?: number): Promise<Run> {
  const set = await startReplicas(config.engine, config.replicas, world);
  try {
    await load.load({ kind: 'slack', url: set.urls, secret: SLACK_SECRET, connections: 10, seconds: 5, amount: WARMUP_REQUESTS });
    // Measured from an idle service: the warm-up's work done, so no level inherits a backlog.
    const settled = Date.now() + SETTLE_LIMIT_MS;
    for (let p = await set.progress(); (p.worked < p.stored || p.owed > 0) && Date.now() < settled; p = await set.progress()) await sleep(100);
    const cpu = await set.cpuMs();
    const result = await load.load({ kind: 'slack', url: set.urls, secret: SLACK_SECRET, connections, seconds, ...(rate !== undefined && { rate }) });
    const used = (await set.cpuMs()) - cpu;
    return { connections, ...(rate !== undefined && { rate }), result, progress: await set.progress(), cpuPct: used / (10 * result.seconds) };
  } finally {
    await set.stop();
  }
}

/** `BENCH_SQLITE_ONLY=1`: only the SQLite process (its acknowledgements under load), no PostgreSQL. */
const selectedConfigs = (): Config[] => (process.env['BENCH_SQLITE_ONLY'] === '1' ? CONFIGS.filter((config) => config.engine === 'sqlite') : CONFIGS);

export function replicaIntake(): Promise<Section> {
  const levels = phase([10, 50, 100], [50]);
  const seconds = phase(3, 1);
  const rateSeconds = phase(5, 2);
  return withOutside('slack', async ({ load, urls }) => {
    const measured: Array<{ config: Config; levels: Run[]; fixed: Run }> = [];
    for (const config of selectedConfigs()) {
      const runs: Run[] = [];
      for (const connections of levels) runs.push(await measure(config, urls, load, connections, seconds));
      const fixed = await measure(config, urls, load, RATE_CONNECTIONS, rateSeconds, RATE);
      measured.push({ config, levels: runs, fixed });
    }

    const best = (runs: Run[]) => runs.reduce((top, run) => (perSecond(run.result) > perSecond(top.result) ? run : top));
    const sqlite = measured[0] as (typeof measured)[number];
    const sqlitePeak = perSecond(best(sqlite.levels).result);
    const sqliteP99 = sqlite.fixed.result.latency.p99;
    const figures: Figure[] = [];
    for (const { config, levels: runs, fixed } of measured) {
      const top = best(runs);
      const peak = perSecond(top.result);
      const isSqlite = config.engine === 'sqlite';
      const allOk = [...runs, fixed].every((run) => failures(run.result) === 0);
      figures.push({
        section: SECTION,
        name: `${config.label}: peak acknowledged/s (c=${top.connections})`,
        value: peak,
        unit: 'req/s',
        ...(!isSqlite && { baseline: { label: 'SQLite, 1 process', value: sqlitePeak } }),
        ...(config.replicas === 3 && { target: { text: `≥ ${SHARE_TARGET}× one SQLite process, all 2xx`, met: peak >= SHARE_TARGET * sqlitePeak && allOk } }),
      });
      figures.push({
        section: SECTION,
        name: `${config.label}: ${RATE}/s ack p99`,
        value: fixed.result.latency.p99,
        unit: 'ms',
        ...(!isSqlite && { baseline: { label: 'SQLite, 1 process', value: sqliteP99 } }),
        ...(!isSqlite && { target: { text: `< ${P99_TARGET_MS} ms, all 2xx`, met: fixed.result.latency.p99 < P99_TARGET_MS && failures(fixed.result) === 0 } }),
      });
    }

    const describe = (config: Config, run: Run) => {
      const label = run.rate === undefined ? `c=${run.connections}` : `${run.rate}/s over ${run.connections} connections`;
      const p = run.progress;
      const bad = failures(run.result);
      return (
        `${config.label}, ${label}: ${run.result.ok.toLocaleString('en-US')} acknowledged in ${run.result.seconds.toFixed(1)} s (${perSecond(run.result).toFixed(0)}/s), ` +
        `p50 ${run.result.latency.p50.toFixed(1)} / p99 ${run.result.latency.p99.toFixed(1)} / max ${run.result.latency.max.toFixed(0)} ms; ` +
        `then ${p.stored.toLocaleString('en-US')} stored, ${p.worked.toLocaleString('en-US')} worked; CPU of the replicas ${run.cpuPct.toFixed(0)}% of one core, load generator ${(run.result.cpuMs / (10 * run.result.seconds)).toFixed(0)}%` +
        (bad === 0
          ? '; every answer 2xx.'
          : `; NOT 2xx or failed: ${JSON.stringify(run.result.other)}, errors ${run.result.errors}, timeouts ${run.result.timeouts}.`)
      );
    };
    return {
      title: SECTION,
      figures,
      notes: [
        `Correctly signed Slack app_mention events (as in the Slack intake section) from autocannon in a child process, its connections spread over the replicas in turn. Every service is a separate process (bench/service-child.ts, the composition root with Slack over HTTP) on a fresh database: a SQLite file, or a PostgreSQL database of the bench's own server (PostgreSQL's default durability: fsync and synchronous commits on; SQLite commits with synchronous = NORMAL). Each level runs ${seconds} s, the fixed rate ${rateSeconds} s, on freshly started replicas warmed with ${WARMUP_REQUESTS} requests whose work was finished before measuring (the service then works what the load stores, as in production). The fakes and the emulator (manual mode) run in another child. Latency = autocannon's response time.`,
        ...measured.flatMap(({ config, levels: runs, fixed }) => [...runs, fixed].map((run) => describe(config, run))),
      ],
    };
  });
}
