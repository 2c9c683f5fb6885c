/**
 * Footprint of the built service as people run it (`node dist/cli.js serve`, no configuration: the
 * built-in emulator and ./data/agent-bridge.db in a fresh temp folder; only PORT=0 and HOST=127.0.0.1
 * so it binds a free loopback port):
 *
 * - time from spawn to GET /readyz answering 200, against a bare `http.createServer().listen(0)`;
 * - resident memory (the child's VmRSS) after it settles, with a database holding 10,000 tracked
 *   runs and 100,000 anchor links, against the same child on an empty database.
 */
import { execSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { openSqliteStore } from '../src/store/sqlite-store.js';
import { median, sleep, type Figure, type Section } from './report.js';
import { TRACKER_LISTED_AT, TRACKER_WATERMARK } from '../src/core/ports/setting-names.js';

const SECTION = 'Footprint';
const ROOT = resolve(import.meta.dirname, '..');
const CLI = join(ROOT, 'dist/cli.js');
const LISTENING = /"url":"(http:\/\/[^"]+)".*agent-bridge is listening/;
const START_SAMPLES = 5;
const SETTLE_MS = 3_000;
const TRACKED_RUNS = 10_000;
const ANCHOR_LINKS = 100_000;
const READY_TARGET_MS = 1_500;
const RSS_TARGET_MB = 150;

/** Newest modification time of the files `npm run build` compiles (src/, tests excluded). */
function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/** Builds dist/ when it is missing or older than src/. Returns a note for the report, if any. */
function ensureBuilt(): string | undefined {
  if (existsSync(CLI) && statSync(CLI).mtimeMs >= newestSource(join(ROOT, 'src'))) return undefined;
  process.stderr.write('bench: dist/ is missing or older than src/; running npm run build …\n');
  try {
    execSync('npm run build', { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
    return 'dist/ was rebuilt (npm run build) before measuring.';
  } catch (error) {
    const output = String((error as { stdout?: Buffer }).stdout ?? '')
      .split('\n')
      .filter((line) => line.includes('error'))
      .slice(0, 3);
    if (!existsSync(CLI)) throw new Error(`npm run build failed and there is no dist/cli.js: ${output.join(' | ')}`, { cause: error });
    return `npm run build reported errors (${output.join(' | ') || 'see npm run build'}); measured the dist/ it produced.`;
  }
}

interface Child {
  child: ChildProcess;
  /** Resolves with the first stdout match of `pattern`; rejects after `timeoutMs` or when the child exits. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray>;
  stop(): Promise<void>;
}

function start(args: string[], cwd: string, env: Record<string, string> = {}): Child {
  const child = spawn(process.execPath, args, {
    cwd,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const listeners = new Set<() => void>();
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    for (const listener of [...listeners]) listener();
  });
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return {
    child,
    waitFor(pattern, timeoutMs) {
      return new Promise((resolvePromise, reject) => {
        const check = () => {
          const match = pattern.exec(output);
          if (!match) return;
          cleanup();
          resolvePromise(match);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no ${pattern} within ${timeoutMs} ms; output:\n${output.slice(-2000)}`));
        }, timeoutMs);
        const onExit = () => {
          cleanup();
          reject(new Error(`child exited before printing ${pattern}; output:\n${output.slice(-2000)}`));
        };
        const cleanup = () => {
          clearTimeout(timer);
          listeners.delete(check);
          child.off('exit', onExit);
        };
        listeners.add(check);
        child.once('exit', onExit);
        check();
      });
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const killed = await Promise.race([exited.then(() => true), sleep(5_000).then(() => false)]);
      if (!killed) {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}

/** Polls `url` until it answers 200 (every 5 ms, at most `timeoutMs`). */
async function until200(url: string, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    try {
      const response = await fetch(url);
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    if (performance.now() > deadline) throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`);
    await sleep(5);
  }
}

const LOOPBACK = { PORT: '0', HOST: '127.0.0.1' };

/** spawn → listening log line → /readyz 200, in a fresh folder (the database is created and migrated). */
async function serveStart(): Promise<{ listeningMs: number; readyMs: number }> {
  const cwd = mkdtempSync(join(tmpdir(), 'agent-bridge-bench-'));
  const begin = performance.now();
  const serve = start([CLI, 'serve'], cwd, LOOPBACK);
  try {
    const [, url] = await serve.waitFor(LISTENING, 10_000);
    const listeningMs = performance.now() - begin;
    await until200(`${url}/readyz`, 10_000);
    return { listeningMs, readyMs: performance.now() - begin };
  } finally {
    await serve.stop();
    rmSync(cwd, { recursive: true, force: true });
  }
}

/** The baseline: spawn → a bare node:http server says it listens. */
async function bareStart(): Promise<number> {
  const begin = performance.now();
  const bare = start(['-e', "require('http').createServer().listen(0, '127.0.0.1', () => console.log('up'))"], tmpdir());
  try {
    await bare.waitFor(/up/, 10_000);
    return performance.now() - begin;
  } finally {
    await bare.stop();
  }
}

/** Fills ./data/agent-bridge.db of `cwd` with tracked runs and anchor links, in a few transactions. */
async function prefill(cwd: string): Promise<{ ms: number }> {
  const begin = performance.now();
  const store = openSqliteStore({ path: join(cwd, 'data', 'agent-bridge.db') });
  const now = Date.now();
  const runIds = Array.from({ length: TRACKED_RUNS }, (_, index) => `run_bench${String(index).padStart(11, '0')}`);
  const updatedAt = new Date(now - 60_000).toISOString();
  store.db.transaction(() => {
    runIds.forEach((runId, index) =>
      store.trackedRuns.insertWithin(
        {
          runId,
          anchor: `slack:C0BENCH:${1_700_000_000 + index}.000100`,
          source: 'bench',
          title: `bench run ${index}`,
          route: {},
          destinations: [`slack:C0BENCH:${1_700_000_000 + index}.000100`],
          triggerKey: null,
          state: 'INPROGRESS',
          serverUpdatedAt: updatedAt,
          sessionLink: `http://127.0.0.1/sessions/sess_bench${index}`,
        },
        now,
      ),
    );
  })();
  const batch = 10_000;
  for (let first = 0; first < ANCHOR_LINKS; first += batch) {
    store.db.transaction(() => {
      for (let index = first; index < Math.min(first + batch, ANCHOR_LINKS); index++) {
        store.anchors.linkWithin(`slack:C0BENCH:${1_600_000_000 + index}.000200`, runIds[index % TRACKED_RUNS] as string, now);
      }
    })();
  }
  // Steady state, as after earlier ticks: every run observed, the watermark and last full list recent
  // (the built-in emulator does not know these runs, so a fresh tracker would GET them and drop them).
  await store.trackedRuns.touch(runIds, now);
  await store.settings.set(TRACKER_WATERMARK, updatedAt);
  await store.settings.set(TRACKER_LISTED_AT, String(now));
  store.db.pragma('wal_checkpoint(TRUNCATE)');
  await store.close();
  return { ms: performance.now() - begin };
}

function rssMb(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
}

/** A serve child in `cwd`: ready, then SETTLE_MS, then its memory and tracked-runs gauge. */
async function settledServe(cwd: string): Promise<{ rss: number; hwm: number; tracked: string }> {
  const serve = start([CLI, 'serve'], cwd, LOOPBACK);
  try {
    const [, url] = await serve.waitFor(LISTENING, 10_000);
    await until200(`${url}/readyz`, 10_000);
    await sleep(SETTLE_MS);
    const memory = rssMb(serve.child.pid as number);
    const metrics = await (await fetch(`${url}/metrics`)).text();
    const tracked = /^agent_bridge_tracked_runs (\S+)$/m.exec(metrics)?.[1] ?? '?';
    return { ...memory, tracked };
  } finally {
    await serve.stop();
  }
}

export async function footprint(): Promise<Section> {
  const notes: string[] = [];
  const built = ensureBuilt();
  if (built) notes.push(built);
  await serveStart(); // first start warms the disk cache; not counted
  const serve: Array<{ listeningMs: number; readyMs: number }> = [];
  const bare: number[] = [];
  for (let index = 0; index < START_SAMPLES; index++) {
    serve.push(await serveStart());
    bare.push(await bareStart());
  }
  const readyMs = median(serve.map((s) => s.readyMs));

  const emptyCwd = mkdtempSync(join(tmpdir(), 'agent-bridge-bench-'));
  const fullCwd = mkdtempSync(join(tmpdir(), 'agent-bridge-bench-'));
  try {
    const empty = await settledServe(emptyCwd);
    const filled = await prefill(fullCwd);
    const full = await settledServe(fullCwd);
    notes.push(
      `Start: median of ${START_SAMPLES} (after one unmeasured start), each in a fresh folder, so the database is created and migrated; "listening" logged after ${median(serve.map((s) => s.listeningMs)).toFixed(0)} ms, /readyz 200 after ${readyMs.toFixed(0)} ms (all: ${serve.map((s) => s.readyMs.toFixed(0)).join(', ')} ms). The baseline is spawn → "up" printed by node -e "http.createServer().listen(0)".`,
      `Memory: VmRSS of the serve child ${SETTLE_MS / 1000} s after /readyz answered 200; peak (VmHWM) ${full.hwm.toFixed(1)} MB with the filled database, ${empty.hwm.toFixed(1)} MB empty. The filled database (${TRACKED_RUNS.toLocaleString('en-US')} tracked runs, ${ANCHOR_LINKS.toLocaleString('en-US')} anchor links, written in ${filled.ms.toFixed(0)} ms) is in the tracker's steady state (watermark set, every run observed); /metrics reported agent_bridge_tracked_runs ${full.tracked} (empty: ${empty.tracked}).`,
    );
    const figures: Figure[] = [
      {
        section: SECTION,
        name: 'spawn → /readyz 200',
        value: readyMs,
        unit: 'ms',
        baseline: { label: 'bare node http server', value: median(bare) },
        target: { text: `< ${READY_TARGET_MS} ms`, met: readyMs < READY_TARGET_MS },
      },
      {
        section: SECTION,
        name: `RSS, ${TRACKED_RUNS / 1000}k runs + ${ANCHOR_LINKS / 1000}k links`,
        value: full.rss,
        unit: 'MB',
        baseline: { label: 'same, empty database', value: empty.rss },
        target: { text: `< ${RSS_TARGET_MB} MB`, met: full.rss < RSS_TARGET_MB },
      },
    ];
    return { title: SECTION, figures, notes };
  } finally {
    rmSync(emptyCwd, { recursive: true, force: true });
    rmSync(fullCwd, { recursive: true, force: true });
  }
}
