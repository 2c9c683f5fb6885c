/**
 * Intake throughput and acknowledgement latency under load, shared by the Slack and the Linear
 * sections: autocannon (in the "load" child) against the full service and against a bare baseline,
 * at rising concurrency and at a fixed rate. Each service run gets a fresh service and database, so
 * every level starts from the same state; the baseline runs right before it, so both see the same
 * machine.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { BenchService, Server } from './bench-service.js';
import type { LoadResult } from './outside.js';
import type { Outside } from './outside-client.js';
import { profiled } from './profile.js';
import type { Figure, Section } from './report.js';

export interface ThroughputPlan {
  section: string;
  kind: 'slack' | 'linear';
  secret: string;
  /** What a request is, for the notes. */
  what: string;
  load: Outside;
  world: Outside;
  baseline: Server;
  baselineLabel: string;
  startService(): Promise<BenchService>;
  levels: number[];
  seconds: number;
  rate: number;
  rateConnections: number;
  rateSeconds: number;
  warmupSeconds: number;
}

interface Measured {
  result: LoadResult;
  /** CPU of this process (the server under test) while the load ran, ms. */
  serverCpuMs: number;
  /** CPU of the world child (fakes, emulator), ms. */
  worldCpuMs: number;
  /** How late this process's event loop ran timers while the load ran (p99, max), ms. */
  loopDelay: { p99: number; max: number };
  progress?: Awaited<ReturnType<BenchService['progress']>>;
}

const THROUGHPUT_SHARE = 0.8;
const RATE_P99_MS = 50;

const failures = (result: LoadResult) => Object.values(result.other).reduce((sum, count) => sum + count, 0) + result.errors + result.timeouts;
const perSecond = (result: LoadResult) => result.ok / result.seconds;
const pct = (cpuMs: number, seconds: number) => `${Math.round(cpuMs / (10 * seconds))}%`;

export async function throughput(plan: ThroughputPlan): Promise<Section> {
  const measure = async (url: string, connections: number, seconds: number, rate?: number): Promise<Measured> => {
    const world = (await plan.world.stats()).cpuMs;
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const cpu = process.cpuUsage();
    const knownIssues = url !== plan.baseline.url;
    const result = await plan.load.load({ kind: plan.kind, url, secret: plan.secret, connections, seconds, knownIssues, ...(rate !== undefined && { rate }) });
    const used = process.cpuUsage(cpu);
    delay.disable();
    return {
      result,
      serverCpuMs: (used.user + used.system) / 1000,
      worldCpuMs: (await plan.world.stats()).cpuMs - world,
      loopDelay: { p99: delay.percentile(99) / 1e6, max: delay.max / 1e6 },
    };
  };
  const onService = async (name: string, connections: number, seconds: number, rate?: number): Promise<Measured> => {
    const service = await plan.startService();
    try {
      const measured = await profiled(name, () => measure(service.url, connections, seconds, rate));
      return { ...measured, progress: await service.progress() };
    } finally {
      await service.stop();
    }
  };

  const onBaseline = (name: string, connections: number, seconds: number, rate?: number) =>
    profiled(`${plan.kind}-baseline-${name}`, () => measure(plan.baseline.url, connections, seconds, rate));

  // Warm-up (JIT, connection pools, SQLite page cache); not counted.
  await measure(plan.baseline.url, 10, plan.warmupSeconds);
  await onService(`${plan.kind}-warmup`, 10, plan.warmupSeconds);

  const runs: Array<{ connections: number; rate?: number; base: Measured; full: Measured }> = [];
  for (const connections of plan.levels) {
    const base = await onBaseline(`c${connections}`, connections, plan.seconds);
    const full = await onService(`${plan.kind}-c${connections}`, connections, plan.seconds);
    runs.push({ connections, base, full });
  }
  const base = await onBaseline(`rate${plan.rate}`, plan.rateConnections, plan.rateSeconds, plan.rate);
  const full = await onService(`${plan.kind}-rate${plan.rate}`, plan.rateConnections, plan.rateSeconds, plan.rate);
  const fixed = { connections: plan.rateConnections, rate: plan.rate, base, full };

  const figure = (name: string, value: number, unit: string, baseline: number, target?: Figure['target']): Figure => ({
    section: plan.section,
    name,
    value,
    unit,
    baseline: { label: plan.baselineLabel, value: baseline },
    ...(target ? { target } : {}),
  });
  const figures: Figure[] = [];
  for (const run of runs) {
    const c = `c=${run.connections}`;
    figures.push(
      figure(`${c}: acknowledged/s`, perSecond(run.full.result), 'req/s', perSecond(run.base.result)),
      figure(`${c}: ack p50`, run.full.result.latency.p50, 'ms', run.base.result.latency.p50),
      figure(`${c}: ack p99`, run.full.result.latency.p99, 'ms', run.base.result.latency.p99),
    );
  }
  const peak = Math.max(...runs.map((run) => perSecond(run.full.result)));
  const basePeak = Math.max(...runs.map((run) => perSecond(run.base.result)));
  const allFailures = [...runs, fixed].reduce((sum, run) => sum + failures(run.full.result), 0);
  figures.push(
    figure('peak acknowledged/s (best level)', peak, 'req/s', basePeak, {
      text: `≥ ${Math.round(THROUGHPUT_SHARE * 100)}% of baseline, all 2xx`,
      met: peak >= THROUGHPUT_SHARE * basePeak && allFailures === 0,
    }),
  );
  const r = `${plan.rate}/s`;
  figures.push(
    figure(`${r}: acknowledged/s`, perSecond(fixed.full.result), 'req/s', perSecond(fixed.base.result)),
    figure(`${r}: ack p50`, fixed.full.result.latency.p50, 'ms', fixed.base.result.latency.p50),
    figure(`${r}: ack p99`, fixed.full.result.latency.p99, 'ms', fixed.base.result.latency.p99, {
      text: `< ${RATE_P99_MS} ms, all 2xx`,
      met: fixed.full.result.latency.p99 < RATE_P99_MS && failures(fixed.full.result) === 0,
    }),
    figure(`${r}: ack max`, fixed.full.result.latency.max, 'ms', fixed.base.result.latency.max),
  );

  const describe = (run: { connections: number; rate?: number; base: Measured; full: Measured }) => {
    const { full, base } = run;
    const p = full.progress;
    const seconds = full.result.seconds;
    const bad = failures(full.result) + failures(base.result);
    const label = run.rate === undefined ? `c=${run.connections}` : `${run.rate}/s over ${run.connections} connections`;
    return (
      `${label}: service ${full.result.ok.toLocaleString('en-US')} answers in ${seconds.toFixed(1)} s` +
      (p
        ? ` (then ${p.stored.toLocaleString('en-US')} triggers stored, ${p.worked.toLocaleString('en-US')} worked, ${p.outboxSent.toLocaleString('en-US')} messages delivered, ${p.outboxOpen.toLocaleString('en-US')} still owed)`
        : '') +
      `; CPU of one core: server ${pct(full.serverCpuMs, seconds)} (baseline ${pct(base.serverCpuMs, base.result.seconds)}), load generator ${pct(full.result.cpuMs, seconds)} (${pct(base.result.cpuMs, base.result.seconds)}), fakes+emulator ${pct(full.worldCpuMs, seconds)}` +
      `; server event-loop delay p99 ${full.loopDelay.p99.toFixed(0)} ms, max ${full.loopDelay.max.toFixed(0)} ms (baseline ${base.loopDelay.p99.toFixed(0)} / ${base.loopDelay.max.toFixed(0)} ms)` +
      (bad === 0
        ? '; every answer 2xx.'
        : `; NOT 2xx or failed: service ${JSON.stringify(full.result.other)} errors ${full.result.errors} timeouts ${full.result.timeouts}, baseline ${JSON.stringify(base.result.other)} errors ${base.result.errors}.`)
    );
  };
  return {
    title: plan.section,
    figures,
    notes: [
      `${plan.what} Load from autocannon in a child process; the fakes and the run-API emulator (manual mode: runs stay QUEUED) in another; the server under test alone in the bench process. Each level runs ${plan.seconds} s against the baseline, then ${plan.seconds} s against a freshly started service on a new SQLite file (after ${plan.warmupSeconds} s of warm-up for each). Latency = autocannon's response time (request written → answer read), every response counted.`,
      `Fixed rate: autocannon overallRate ${plan.rate}/s over ${plan.rateConnections} connections for ${plan.rateSeconds} s. autocannon paces per connection and per second: each connection sends its ${plan.rate / plan.rateConnections} requests of a second back to back, then waits for the next second, so the load arrives as a burst at concurrency ${plan.rateConnections} at the start of every second rather than evenly (harsher than a steady stream). Its coordinated-omission correction is off (it assumes a 1 ms interval); the raw response times are reported.`,
      ...runs.map(describe),
      describe(fixed),
    ],
  };
}
