/**
 * A tracker under test against the real pieces: the emulator (manual mode, its own clock running an
 * hour behind ours, so a watermark taken from our clock would show), the real HTTP client and SQLite
 * in memory. Our time is a TestClock; `advance` moves both clocks together.
 */
import { AgentApiClient } from '../../src/agent-api/index.js';
import type { DrivePatch } from '../../src/emulator/index.js';
import type { Surfaces } from '../../src/core/surfaces.js';
import { startEmulator, type RequestLogEntry, type RunningEmulator } from '../../src/emulator/index.js';
import { TestClock } from '../../src/core/ports/clock.js';
import type { RunItem } from '../../src/core/ports/agent-runs.js';
import type { SessionPlaces } from '../../src/core/ports/notifier.js';
import type { NewTrackedRun, Store } from '../../src/core/ports/store.js';
import { Tracker, type TrackerOptions } from '../../src/core/tracker/tracker.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite-store.js';
import { CapturingLogger } from './capturing-logger.js';
import { recordingMetrics } from './recording-metrics.js';

const KEY = 'test-key';
export const SLACK = 'slack:C1:1700.1';
/** The emulator's clock is this far behind ours. */
export const SERVER_BEHIND_MS = 3_600_000;

export class TrackerHarness {
  readonly clock = new TestClock();
  readonly logger = new CapturingLogger();
  readonly metrics = recordingMetrics();
  serverNow = this.clock.now() - SERVER_BEHIND_MS;

  private constructor(
    readonly emulator: RunningEmulator,
    readonly store: SqliteStore,
    readonly client: AgentApiClient,
  ) {}

  static async start(): Promise<TrackerHarness> {
    // The emulator reads the harness's server time, and the harness needs the emulator: a slot filled below.
    const made: { harness?: TrackerHarness } = {};
    const emulator = await startEmulator({ apiKey: KEY, manual: true, clock: { now: () => new Date(made.harness?.serverNow ?? 0) } });
    // No retries: every request the tracker makes is exactly one request in the emulator's log.
    const client = new AgentApiClient({ baseUrl: emulator.baseUrl, apiKey: KEY, retry: { maxRetries: 0 } });
    made.harness = new TrackerHarness(emulator, openSqliteStore({ path: ':memory:' }), client);
    return made.harness;
  }

  tracker(
    owner = 'tracker-1',
    options: Partial<TrackerOptions> = {},
    extra: { store?: Store; clock?: TestClock; sessionPlaces?: SessionPlaces; surfaces?: Surfaces } = {},
  ): Tracker {
    return new Tracker({
      ...(extra.sessionPlaces && { sessionPlaces: extra.sessionPlaces }),
      ...(extra.surfaces && { surfaces: extra.surfaces }),
      store: extra.store ?? this.store,
      runs: this.client,
      clock: extra.clock ?? this.clock,
      logger: this.logger,
      metrics: this.metrics,
      owner,
      options: { pageSize: 100, intervalMs: 10_000, ...options },
    });
  }

  /** Creates a run in the emulator and stores it as tracked (as the intake worker would). */
  async track(overrides: Partial<NewTrackedRun> = {}, prompt = 'Fix the build'): Promise<string> {
    const run = this.emulator.engine.createRun({ prompt, title: 'Fix the build' });
    await this.store.trackedRuns.insert(this.trackedRun(run, overrides), this.clock.now());
    return run.run_id;
  }

  trackedRun(run: RunItem, overrides: Partial<NewTrackedRun> = {}): NewTrackedRun {
    return {
      runId: run.run_id,
      anchor: SLACK,
      source: 'slack',
      title: 'Fix the build',
      route: {},
      destinations: [SLACK],
      triggerKey: 'Ev1',
      state: run.state,
      serverUpdatedAt: null,
      sessionLink: null,
      ...overrides,
    };
  }

  drive(runId: string, state: string, patch?: DrivePatch): RunItem {
    return this.emulator.engine.drive(runId, state, patch);
  }

  /** Moves our clock and the server's by `ms`. */
  async advance(ms: number): Promise<void> {
    this.serverNow += ms;
    await this.clock.advance(ms);
  }

  async requests(): Promise<RequestLogEntry[]> {
    return ((await this.testing('GET', 'requests')) as { requests: RequestLogEntry[] }).requests;
  }

  async clearRequests(): Promise<void> {
    await this.testing('DELETE', 'requests');
  }

  async fault(body: Record<string, unknown>): Promise<void> {
    await this.testing('POST', 'faults', body);
  }

  /** Outbox keys in id order. */
  async keys(): Promise<string[]> {
    return (await this.store.outbox.list()).map((row) => row.key);
  }

  async payload(key: string): Promise<unknown> {
    return (await this.store.outbox.getByKey(key))?.payload;
  }

  async setting(name: string): Promise<string | undefined> {
    return this.store.settings.get(name);
  }

  async close(): Promise<void> {
    await this.client.close();
    await this.emulator.close();
    await this.store.close();
  }

  private async testing(method: string, path: string, body?: unknown): Promise<unknown> {
    const response = await fetch(`${this.emulator.url}/_emulator/${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!response.ok) throw new Error(`emulator ${method} ${path}: ${response.status} ${await response.text()}`);
    return response.json();
  }
}

/** `run:<id>:<n>:<destination>:<kind>` keys of one run, for compact expectations. */
export function runKeys(runId: string, destination: string, ...entries: Array<[number, ...Array<'status' | 'announce' | 'notice'>]>): string[] {
  return entries.flatMap(([n, ...kinds]) => kinds.map((kind) => `run:${runId}:${n}:${destination}:${kind}`));
}

/** Only the list requests (GET /agent/runs) of a request log. */
export function listRequests(log: RequestLogEntry[]): RequestLogEntry[] {
  return log.filter((entry) => entry.method === 'GET' && entry.path === '/api/v1/agent/runs');
}
