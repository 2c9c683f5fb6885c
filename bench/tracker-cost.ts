/**
 * Tracker cost: run-API requests and CPU per tick with 10, 1,000 and 10,000 tracked runs, 1% of them
 * changing per tick, against a naive poller that GETs every tracked run each tick.
 *
 * Real parts: the Tracker, SQLite (in memory), the HTTP client and the emulator (in this process, in
 * manual mode). As in test/core/tracker-harness.ts, the emulator's clock runs an hour behind ours and
 * both move 10 s (one tracker interval) per tick, so the watermark comes from the server's clock.
 */
import { AgentApiClient } from '../src/agent-api/index.js';
import { TestClock } from '../src/core/ports/clock.js';
import { Tracker, type TickReport } from '../src/core/tracker/tracker.js';
import { startEmulator, type RunningEmulator } from '../src/emulator/index.js';
import { createLogger } from '../src/log/create-logger.js';
import type { Store } from '../src/core/ports/store.js';
import { openSqliteStore } from '../src/store/sqlite-store.js';
import { profiled } from './profile.js';
import { measure, median, type Figure, type Section } from './report.js';
import { TRACKER_SCAN } from '../src/core/ports/setting-names.js';

const SECTION = 'Tracker cost';
const KEY = 'bench-tracker-key';
export const PAGE_SIZE = 100;
const INTERVAL_MS = 10_000;
const SERVER_BEHIND_MS = 3_600_000;
export const MEASURED_TICKS = 5;
const MAX_WARMUP_TICKS = 20;
/** The naive poller's GETs are measured on at most this many runs per pass and extrapolated beyond. */
const POLLER_SAMPLE = 1_000;
const POLLER_PASSES = 3;
export const CPU_TARGET_MS = 200;
/**
 * Server time between two run creations: runs are created (and stored as tracked, as the intake
 * worker does) 100 per interval, with a tracker tick after each interval, so every run has been
 * observed by the tracker before measuring — as in a service that has been up while they started.
 */
const CREATED_EVERY_MS = 100;

interface TickSample {
  report: TickReport;
  http: number;
  cpuMs: number;
  /** CPU of the database server's processes during the tick (PostgreSQL; 0 for SQLite, which runs in this process). */
  dbCpuMs: number;
  wallMs: number;
}

/** The store the tracker runs on: SQLite in memory here, PostgreSQL in bench/tracker-cost-postgres.ts. */
export interface TrackerDatabase {
  store: Store;
  /** CPU the database server's processes have used so far, in ms (a server outside this process). */
  serverCpuMs?: () => Promise<number>;
}

const sqliteInMemory = (): Promise<TrackerDatabase> => Promise.resolve({ store: openSqliteStore({ path: ':memory:' }) });

export interface ScaleResult {
  tracked: number;
  changedPerTick: number;
  rampTicks: number;
  rampRequests: number;
  rampMaxRequests: number;
  warmupTicks: number;
  ticks: TickSample[];
  poller: { gets: number; cpuMs: number; wallMs: number; extrapolated: boolean } | undefined;
}

const rampFigures = (ramp: TickSample[]) => ({
  rampTicks: ramp.length,
  rampRequests: ramp.reduce((sum, tick) => sum + tick.http, 0),
  rampMaxRequests: Math.max(...ramp.map((tick) => tick.http)),
});

class Bench {
  readonly clock = new TestClock();
  serverNow = this.clock.now() - SERVER_BEHIND_MS;
  http = 0;
  readonly store: Store;
  readonly runIds: string[] = [];
  readonly tracker: Tracker;
  private cursor = 0;

  constructor(
    readonly emulator: RunningEmulator,
    readonly client: AgentApiClient,
    readonly database: TrackerDatabase,
  ) {
    this.store = database.store;
    this.tracker = new Tracker({
      store: this.store,
      runs: client,
      clock: this.clock,
      logger: createLogger({ level: 'silent', secrets: [] }),
      owner: 'bench-tracker',
      options: { pageSize: PAGE_SIZE, intervalMs: INTERVAL_MS },
    });
  }

  static async start(open: () => Promise<TrackerDatabase>): Promise<Bench> {
    // The emulator reads the bench's server time, and the bench needs the emulator: a slot filled below.
    const made: { bench?: Bench } = {};
    const emulator = await startEmulator({ apiKey: KEY, port: 0, manual: true, clock: { now: () => new Date(made.bench?.serverNow ?? 0) } });
    // No retries, and every HTTP exchange counted: one request is one request.
    const client = new AgentApiClient({
      baseUrl: emulator.baseUrl,
      apiKey: KEY,
      retry: { maxRetries: 0 },
      onRequest: () => {
        if (made.bench) made.bench.http++;
      },
    });
    made.bench = new Bench(emulator, client, await open());
    return made.bench;
  }

  /**
   * Creates `count` INPROGRESS runs in the emulator and stores each as tracked, as the intake worker
   * would, one every CREATED_EVERY_MS of server time, with a tracker tick after each interval.
   * Returns those ticks (the first one bootstraps the watermark).
   */
  async ramp(count: number): Promise<TickSample[]> {
    const ticks: TickSample[] = [];
    const perInterval = INTERVAL_MS / CREATED_EVERY_MS;
    for (let index = 0; index < count; index++) {
      this.serverNow += CREATED_EVERY_MS;
      const created = this.emulator.engine.createRun({ prompt: `bench run ${index}`, config: { name: 'bench' } });
      const run = this.emulator.engine.drive(created.run_id, 'INPROGRESS');
      this.runIds.push(run.run_id);
      await this.store.trackedRuns.insert(
        {
          runId: run.run_id,
          anchor: `log:bench:${index}`,
          source: 'bench',
          title: `bench run ${index}`,
          route: {},
          destinations: ['log:bench'],
          triggerKey: null,
          state: 'INPROGRESS',
          serverUpdatedAt: run.updated_at ?? null,
          sessionLink: run.session_link ?? null,
        },
        this.clock.now(),
      );
      if ((index + 1) % perInterval === 0 || index === count - 1) {
        await this.clock.advance(INTERVAL_MS);
        ticks.push(await this.measureTick());
      }
    }
    return ticks;
  }

  /** One interval passes; `changes` runs (the next ones in turn) move INPROGRESS ⇄ BLOCKED; then one tick. */
  async tick(changes: number): Promise<TickSample> {
    this.serverNow += INTERVAL_MS;
    await this.clock.advance(INTERVAL_MS);
    for (let index = 0; index < changes; index++) {
      const runId = this.runIds[this.cursor++ % this.runIds.length] as string;
      const current = this.emulator.engine.get(runId)?.state;
      this.emulator.engine.drive(runId, current === 'BLOCKED' ? 'INPROGRESS' : 'BLOCKED');
    }
    return this.measureTick();
  }

  private async measureTick(): Promise<TickSample> {
    const before = this.http;
    const serverCpu = this.database.serverCpuMs ?? (() => Promise.resolve(0));
    const dbBefore = await serverCpu();
    const { result, cpuMs, wallMs } = await measure(() => this.tracker.tick());
    return { report: result, http: this.http - before, cpuMs, dbCpuMs: (await serverCpu()) - dbBefore, wallMs };
  }

  /** The baseline: GET each of `ids` and read its stored row, one after the other, as a naive poller does. */
  async poll(ids: readonly string[]): Promise<{ cpuMs: number; wallMs: number; changed: number }> {
    const { result, cpuMs, wallMs } = await measure(async () => {
      let changed = 0;
      for (const runId of ids) {
        const item = await this.client.getRun(runId);
        const stored = await this.store.trackedRuns.get(runId);
        if (stored?.state !== item.state) changed++;
      }
      return changed;
    });
    return { cpuMs, wallMs, changed: result };
  }

  async close(): Promise<void> {
    await this.client.close();
    await this.emulator.close();
    await this.store.close();
  }
}

/** Ramps up to `tracked` runs, then measures ticks; with `poller`, also the per-run GET poller baseline. */
export async function scale(tracked: number, open: () => Promise<TrackerDatabase> = sqliteInMemory, poller = true): Promise<ScaleResult> {
  const bench = await Bench.start(open);
  try {
    const ramp = await bench.ramp(tracked);
    const changes = Math.max(1, Math.round(tracked / 100));
    // Steady state: a few ticks with changes before measuring (JIT, caches, the watermark settles).
    const warmup: TickSample[] = [];
    for (let index = 0; index < MAX_WARMUP_TICKS; index++) {
      warmup.push(await bench.tick(changes));
      const [a, b] = warmup.slice(-2);
      const scanning = Boolean(await bench.store.settings.get(TRACKER_SCAN));
      if (index >= 2 && !scanning && a && b && a.http === b.http && b.report.changed === changes) break;
    }
    const ticks: TickSample[] = [];
    await profiled(`tracker-${tracked}`, async () => {
      for (let index = 0; index < MEASURED_TICKS; index++) ticks.push(await bench.tick(changes));
    });

    if (!poller) return { tracked, changedPerTick: changes, ...rampFigures(ramp), warmupTicks: warmup.length, ticks, poller: undefined };
    const sample = bench.runIds.slice(0, Math.min(POLLER_SAMPLE, tracked));
    await bench.poll(sample.slice(0, 50)); // warm the JIT for the poller's path
    const passes = [];
    for (let index = 0; index < POLLER_PASSES; index++) passes.push(await bench.poll(sample));
    const factor = tracked / sample.length;
    return {
      tracked,
      changedPerTick: changes,
      ...rampFigures(ramp),
      warmupTicks: warmup.length,
      ticks,
      poller: {
        gets: tracked,
        cpuMs: median(passes.map((p) => p.cpuMs)) * factor,
        wallMs: median(passes.map((p) => p.wallMs)) * factor,
        extrapolated: factor > 1,
      },
    };
  } finally {
    await bench.close();
  }
}

const count = (n: number) => n.toLocaleString('en-US');

export async function trackerCost(scales: number[] = [10, 1_000, 10_000]): Promise<Section> {
  const figures: Figure[] = [];
  const notes: string[] = [
    `page_size ${PAGE_SIZE}, interval ${INTERVAL_MS / 1000} s (simulated: both clocks advance one interval per tick); 1% of tracked runs (at least 1) move INPROGRESS ⇄ BLOCKED before each tick; median of ${MEASURED_TICKS} ticks after warm-up.`,
    'CPU = process.cpuUsage() around tick(): the tracker, the HTTP client, SQLite AND the in-process emulator answering (an upper bound for the tracker alone). The poller is measured the same way.',
    'Baseline poller: GET /agent/runs/{id} then read the stored row, for every tracked run, sequentially.',
  ];
  for (const tracked of scales) {
    const measured = await scale(tracked);
    const result = { ...measured, poller: measured.poller ?? { gets: Number.NaN, cpuMs: Number.NaN, wallMs: Number.NaN, extrapolated: false } };
    const requests = median(result.ticks.map((t) => t.http));
    const changed = median(result.ticks.map((t) => t.report.changed));
    const cpuMs = median(result.ticks.map((t) => t.cpuMs));
    const wallMs = median(result.ticks.map((t) => t.wallMs));
    const bound = 1 + Math.ceil(result.changedPerTick / PAGE_SIZE);
    const label = `${count(tracked)} runs`;
    const poller = result.poller.extrapolated ? `GET poller, ${count(POLLER_SAMPLE)} GETs measured ×${tracked / POLLER_SAMPLE}` : 'GET poller';
    figures.push({
      section: SECTION,
      name: `${label}: requests/tick`,
      value: requests,
      unit: '',
      baseline: { label: 'GET poller', value: result.poller.gets },
      target: { text: `≤ 1 + ⌈changed/page_size⌉ = ${bound}`, met: requests <= bound },
    });
    figures.push({
      section: SECTION,
      name: `${label}: CPU/tick`,
      value: cpuMs,
      unit: 'ms',
      baseline: { label: poller, value: result.poller.cpuMs },
      ...(tracked >= 10_000 ? { target: { text: `< ${CPU_TARGET_MS} ms`, met: cpuMs < CPU_TARGET_MS } } : {}),
    });
    figures.push({
      section: SECTION,
      name: `${label}: wall time/tick`,
      value: wallMs,
      unit: 'ms',
      baseline: { label: poller, value: result.poller.wallMs },
    });
    notes.push(
      `${label}: ${result.changedPerTick} changed per tick (tracker recorded median ${changed}); ` +
        `tick() reported ${median(result.ticks.map((t) => t.report.requests))} requests, the client counted ${requests}; ` +
        `ramp-up (100 runs created per interval): ${result.rampTicks} ticks, ${result.rampRequests} requests, at most ${result.rampMaxRequests} in one tick; ` +
        `then ${result.warmupTicks} warm-up ticks; CPU of the measured ticks ${result.ticks.map((t) => t.cpuMs.toFixed(1)).join(', ')} ms.`,
    );
  }
  return { title: SECTION, figures, notes };
}
