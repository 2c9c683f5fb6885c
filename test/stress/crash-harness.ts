/**
 * Reusable pieces of the stress suites: a seeded random source, bounded waiting, a pool of real
 * service processes (test/stress/bridge-child.ts) that can be killed and restarted on one database,
 * and Slack's side of event delivery (signed POSTs, redelivered on failure with `x-slack-retry-num`).
 */
import { join } from 'node:path';
import { postSlackEvent } from '../fakes/slack-signing.js';
import { ROOT, startTs, type RunningCli } from '../helpers/spawn-cli.js';

export const BRIDGE_CHILD = join(ROOT, 'test/stress/bridge-child.ts');

/** mulberry32: a small, fast, seedable PRNG with values in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The seed of this run: `STRESS_SEED` when set (to replay a failure), else a fresh one. */
export function stressSeed(): number {
  const given = process.env['STRESS_SEED'];
  return given !== undefined && given !== '' ? Number(given) >>> 0 : Math.floor(Math.random() * 2 ** 32) >>> 0;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns something truthy; throws (with `describe()`'s text) after `timeoutMs`. */
export async function until<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs: number,
  describe: () => string | Promise<string> = () => '',
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await check();
    if (found) return found;
    if (Date.now() > deadline) {
      const detail = await describe();
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${detail ? `\n${detail}` : ''}`);
    }
    await sleep(intervalMs);
  }
}

/** One slot of the pool: the process in it now, its URL while it is up. */
interface Slot {
  child: RunningCli | undefined;
  /** Set while the process is up. */
  url: string | undefined;
  /** The URL of the latest process, up or not (requests to a dead one are refused, as Slack finds out). */
  lastUrl: string | undefined;
}

/**
 * N copies of the real service on one database (same working directory, same environment). Each slot
 * holds one process at a time; `kill` SIGKILLs it, `start` puts a fresh one in. `liveUrls` lists the
 * slots that are up, so the sender only aims at processes believed alive (and learns otherwise the hard
 * way, as Slack would, when a kill races a request).
 */
export class BridgePool {
  readonly slots: Slot[];
  /** Every process ever started, for diagnostics and the final cleanup. */
  readonly started: RunningCli[] = [];
  private readonly env: Record<string, string>;
  private readonly cwd: string;
  /** Set by `killAll`: no process is started any more (a restart racing the cleanup would leak). */
  private closed = false;
  /** Spans when no process of the pool was up (nothing could answer or work), the last maybe still open. */
  private readonly allDown: Array<{ from: number; to?: number }> = [];
  /** When each kill happened. */
  private readonly killedAt: number[] = [];

  constructor(options: { size: number; env: Record<string, string>; cwd: string }) {
    this.slots = Array.from({ length: options.size }, () => ({ child: undefined, url: undefined, lastUrl: undefined }));
    this.env = options.env;
    this.cwd = options.cwd;
  }

  /** Starts a process in slot `index` and resolves once it listens. */
  async start(index: number, timeoutMs = 60_000): Promise<void> {
    const slot = this.slots[index]!;
    if (this.closed) throw new Error('the pool was shut down');
    if (slot.child && slot.child.child.exitCode === null && slot.child.child.signalCode === null) throw new Error(`slot ${index} is still running`);
    const child = startTs(BRIDGE_CHILD, { cwd: this.cwd, env: this.env });
    this.started.push(child);
    slot.child = child;
    const match = await child.waitFor(/bridge ready (\S+)/, timeoutMs);
    slot.url = match[1];
    slot.lastUrl = match[1];
    const open = this.allDown.at(-1);
    if (open && open.to === undefined) open.to = Date.now();
  }

  /** SIGKILLs the process in slot `index` (marked down first) and resolves once it is gone. */
  async kill(index: number): Promise<void> {
    const slot = this.slots[index]!;
    slot.url = undefined;
    const last = this.allDown.at(-1);
    if (this.liveUrls().length === 0 && (!last || last.to !== undefined)) this.allDown.push({ from: Date.now() });
    const child = slot.child;
    if (!child) return;
    this.killedAt.push(Date.now());
    child.child.kill('SIGKILL');
    await child.exited;
  }

  /** How long, between `from` and `to`, no process of the pool was up. */
  downBetween(from: number, to: number): number {
    return this.allDown.reduce((sum, span) => sum + Math.max(0, Math.min(to, span.to ?? to) - Math.max(from, span.from)), 0);
  }

  /** How many kills happened after `from` and up to `to`. */
  killsBetween(from: number, to: number): number {
    return this.killedAt.filter((at) => at > from && at <= to).length;
  }

  liveUrls(): string[] {
    return this.slots.flatMap((slot) => (slot.url ? [slot.url] : []));
  }

  /** Where Slack would send an event now: the processes that are up, else the last known (dead) ones. */
  targets(): string[] {
    const live = this.liveUrls();
    return live.length > 0 ? live : this.slots.flatMap((slot) => (slot.lastUrl ? [slot.lastUrl] : []));
  }

  /** Stops every process: SIGTERM (graceful) with a deadline, then SIGKILL. */
  async stopAll(graceMs = 5_000): Promise<void> {
    for (const slot of this.slots) slot.url = undefined;
    await Promise.all(
      this.started.map(async (child) => {
        if (child.child.exitCode !== null || child.child.signalCode !== null) return;
        child.child.kill('SIGTERM');
        const timer = setTimeout(() => child.child.kill('SIGKILL'), graceMs);
        await child.exited;
        clearTimeout(timer);
      }),
    );
  }

  /** SIGKILLs whatever still runs (afterEach / afterAll). */
  async killAll(): Promise<void> {
    this.closed = true;
    for (const slot of this.slots) slot.url = undefined;
    await Promise.all(this.started.map((child) => child.stop('SIGKILL')));
  }

  /** The last lines of every process's output, for a failure message. */
  tails(lines = 15): string {
    return this.started
      .map((child, index) => {
        const tail = (text: string) => text.split('\n').filter(Boolean).slice(-lines).join('\n');
        const exit = child.child.signalCode ?? child.child.exitCode ?? 'running';
        return `--- process ${index} (pid ${child.child.pid}, ${exit}) stdout:\n${tail(child.output.stdout)}\n--- stderr:\n${tail(child.output.stderr)}`;
      })
      .join('\n');
  }
}

/** How Slack's side of one event went. */
export interface DeliveryReport {
  /** HTTP attempts in all, failed ones included. */
  attempts: number;
  /** Attempts that got no 200, by reason: `refused` (nothing listening or reset by a kill), `timeout` (no answer in 3 s), `status <n>`. */
  failures: Record<string, number>;
}

/** Adds up reports. */
export function sumReports(reports: readonly DeliveryReport[]): DeliveryReport {
  const total: DeliveryReport = { attempts: 0, failures: {} };
  for (const report of reports) {
    total.attempts += report.attempts;
    for (const [reason, count] of Object.entries(report.failures)) total.failures[reason] = (total.failures[reason] ?? 0) + count;
  }
  return total;
}

/**
 * Delivers one event as Slack does: POST it signed; if the answer is not 200 (or there is none), send
 * the same envelope again with `x-slack-retry-num` (Slack's 1, 2, 3; later attempts keep 3 — Slack's
 * real schedule is 1 min and 5 min, compressed here to `retryDelayMs` doubling up to 1 s) to whichever
 * process is up (or, while none is, to the dead ones: refused).
 */
export async function deliverLikeSlack(
  pool: BridgePool,
  secret: string,
  envelope: object,
  options: { pick: (urls: string[]) => string; deadline: number; retryDelayMs?: number; firstRetryNum?: number },
): Promise<DeliveryReport> {
  const report: DeliveryReport = { attempts: 0, failures: {} };
  let retryNum = options.firstRetryNum ?? 0;
  for (;;) {
    if (Date.now() > options.deadline) throw new Error(`event not delivered before the deadline after ${report.attempts} attempts`);
    const urls = pool.targets();
    report.attempts++;
    const post = async (): Promise<string> => {
      try {
        const response = await postSlackEvent(
          `${options.pick(urls)}/slack/events`,
          secret,
          envelope,
          retryNum > 0 ? { retryNum: Math.min(retryNum, 3), retryReason: 'http_error' } : {},
        );
        await response.arrayBuffer();
        return response.status === 200 ? 'ok' : `status ${response.status}`;
      } catch {
        return 'refused'; // nothing listening, or the process died under the request
      }
    };
    // Slack waits 3 s for an answer; a request that hangs longer counts as failed (and is retried).
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<string>((resolve) => (timer = setTimeout(() => resolve('timeout'), 3_000)));
    const outcome = await Promise.race([post(), timeout]).finally(() => clearTimeout(timer));
    if (outcome === 'ok') return report;
    report.failures[outcome] = (report.failures[outcome] ?? 0) + 1;
    retryNum++;
    // Slack's own schedule (at once, 1 min, 5 min) compressed: 200 ms, doubling, at most 1 s.
    await sleep(Math.min(1_000, (options.retryDelayMs ?? 200) * 2 ** (retryNum - 1)));
  }
}

/** One planned SIGKILL: when into the burst, which process, how long it stays down. */
export interface PlannedKill {
  atMs: number;
  slot: number;
  downMs: number;
}

/** `count` kills spread over a burst of `burstMs` on `processes` processes, drawn from the seeded `random`. */
export function planKills(count: number, processes: number, burstMs: number, random: () => number): PlannedKill[] {
  return Array.from({ length: count }, (_, k) => ({
    atMs: Math.round((burstMs * (k + 0.15 + 0.7 * random())) / count),
    slot: Math.floor(random() * processes),
    downMs: Math.round(100 + 500 * random()),
  }));
}

/** Carries out `plan` from `t0`: kill, wait, start again. `kills` and `restartMs` (how long each restart took to listen) grow as it goes. */
export function runKills(pool: BridgePool, plan: readonly PlannedKill[], t0: number): { done: Promise<void>; kills: () => number; restartMs: number[] } {
  let kills = 0;
  const restartMs: number[] = [];
  const done = (async () => {
    for (const kill of plan) {
      await sleep(t0 + kill.atMs - Date.now());
      await pool.kill(kill.slot);
      kills++;
      await sleep(kill.downMs);
      const restarting = Date.now();
      await pool.start(kill.slot);
      restartMs.push(Date.now() - restarting);
    }
  })();
  return { done, kills: () => kills, restartMs };
}
