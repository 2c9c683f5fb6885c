/**
 * The web console with a full store: the runs page and one run's page, with 10,000 runs
 * and 100,000 deliveries in the database, against GET /healthz of the same server in the same run.
 *
 * Real parts: the service (`startService`, the console on with CONSOLE_ADMIN_TOKEN) on a SQLite file,
 * the emulator in manual mode, all in this process. The store is filled the way the service fills it
 * (each run's trigger stored, claimed and finished with its run, link and status row, then its later
 * deliveries owed); the deliveries are then marked sent in one statement, as after a long life.
 * Server time is measured from this process over loopback (request sent → answer read), an upper
 * bound of the time the server spent.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config/index.js';
import type { TriggerInput } from '../src/core/ports/triggers.js';
import { startEmulator } from '../src/emulator/index.js';
import { createLogger } from '../src/log/create-logger.js';
import { startService } from '../src/main.js';
import { openSqliteStore } from '../src/store/sqlite-store.js';
import { phase } from './bench-options.js';
import { quantile, type Figure, type Section } from './report.js';

const SECTION = 'Console';
const TOKEN = 'bench-console-admin-token-0123456789abcdef';
const API_KEY = 'bench-console-run-api-key';
const DELIVERIES_PER_RUN = 10;
const TARGET_P95_MS = 50;

/** Fills the database at `path` with `runs` runs and DELIVERIES_PER_RUN deliveries each, as the service would. */
async function fill(path: string, runs: number): Promise<void> {
  const store = openSqliteStore({ path });
  try {
    const now = Date.now() - runs * 1000;
    for (let index = 0; index < runs; index++) {
      const at = now + index * 1000;
      const anchor = `slack:C0BENCH:${1_700_000_000 + index}.000100`;
      const trigger: TriggerInput = {
        kind: 'start',
        key: `bench-console-${index}`,
        source: 'slack',
        anchor,
        payload: {
          prompt: `Bench request ${index}: fix the flaky test in package ${index % 50}`,
          title: `Bench request ${index}`,
          origin: { source: 'slack', channel: 'C0BENCH' },
          destinations: [anchor],
          requester: { platform: 'slack', id: `U${index % 40}`, name: `Person ${index % 40}` },
        },
      };
      const runId = `run-bench-${String(index).padStart(6, '0')}`;
      const { trigger: stored } = await store.triggers.enqueue({
        trigger,
        owed: [{ key: `received:${index}`, destination: anchor, kind: 'received', payload: { kind: 'received', title: `Bench request ${index}` } }],
        now: at,
      });
      await store.triggers.claimNext('bench', at, 60_000);
      const snapshot = { runId, title: `Bench request ${index}`, state: 'QUEUED', pullRequests: [] };
      await store.triggers.finish(
        stored.id,
        'bench',
        { state: 'done', runId },
        {
          run: {
            runId,
            anchor,
            source: 'slack',
            title: `Bench request ${index}`,
            route: {},
            destinations: [anchor],
            triggerKey: stored.key,
            state: 'QUEUED',
            serverUpdatedAt: null,
            sessionLink: null,
          },
          link: { anchor, runId },
          owed: [
            {
              key: `${runId}:0:${anchor}:status`,
              destination: anchor,
              kind: 'status',
              payload: { kind: 'status', run: snapshot, receivedKey: `received:${index}` },
            },
          ],
        },
        at + 100,
      );
      const later = Array.from({ length: DELIVERIES_PER_RUN - 2 }, (_, n) => ({
        key: `${runId}:${n + 1}:${anchor}:status`,
        destination: anchor,
        kind: 'status',
        payload: { kind: 'status', run: { ...snapshot, state: n % 2 ? 'INPROGRESS' : 'BLOCKED' }, receivedKey: `received:${index}` },
      }));
      await store.outbox.add(later, at + 200);
    }
    // Delivered long ago: a store after months of use holds mostly sent rows.
    store.db.prepare("UPDATE outbox SET state = 'sent', sent_at = created_at + 50").run();
  } finally {
    await store.close();
  }
}

export async function consoleBench(): Promise<Section> {
  const runs = phase(10_000, 2_000);
  const requests = phase(200, 50);
  const cwd = mkdtempSync(join(process.env['BENCH_DB_DIR'] ?? tmpdir(), 'agent-bridge-bench-console-'));
  const emulator = await startEmulator({ apiKey: API_KEY, port: 0, manual: true });
  try {
    const dbPath = join(cwd, 'bench.db');
    const fillStarted = performance.now();
    await fill(dbPath, runs);
    const fillSeconds = (performance.now() - fillStarted) / 1000;
    const config = loadConfig({
      cwd,
      env: {
        AGENT_API_BASE_URL: emulator.baseUrl,
        AGENT_API_KEY: API_KEY,
        CONSOLE_ADMIN_TOKEN: TOKEN,
        DATABASE_PATH: dbPath,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
      },
    });
    const service = await startService({ config, logger: createLogger({ level: 'silent', secrets: [TOKEN, API_KEY] }) });
    try {
      const cookie = await signIn(service.url);
      const timed = async (path: string, withCookie: boolean): Promise<number> => {
        const started = performance.now();
        const answer = await fetch(`${service.url}${path}`, { redirect: 'manual', headers: withCookie ? { cookie } : {} });
        await answer.text();
        if (answer.status !== 200) throw new Error(`GET ${path} answered ${answer.status}`);
        return performance.now() - started;
      };
      const runIds = Array.from({ length: requests }, (_, n) => `run-bench-${String(Math.floor((n * 7919) % runs)).padStart(6, '0')}`);
      // Warm-up (JIT, page cache), not counted.
      for (let n = 0; n < 10; n++) {
        await timed('/console/runs', true);
        await timed(`/console/run?id=${runIds[n] ?? ''}`, true);
      }
      const samples = { runs: [] as number[], run: [] as number[], health: [] as number[] };
      for (let n = 0; n < requests; n++) {
        samples.health.push(await timed('/healthz', false));
        samples.runs.push(await timed('/console/runs', true));
        samples.run.push(await timed(`/console/run?id=${runIds[n] ?? ''}`, true));
      }
      const p = (values: number[], q: number) => quantile(values, q);
      const figure = (name: string, values: number[], q: number, target?: boolean): Figure => ({
        section: SECTION,
        name,
        value: p(values, q),
        unit: 'ms',
        baseline: { label: 'GET /healthz', value: p(samples.health, q) },
        ...(target && { target: { text: `< ${TARGET_P95_MS} ms`, met: p(values, q) < TARGET_P95_MS } }),
      });
      return {
        title: SECTION,
        figures: [
          figure('runs page, p50', samples.runs, 0.5),
          figure('runs page, p95', samples.runs, 0.95, true),
          figure("one run's page, p50", samples.run, 0.5),
          figure("one run's page, p95", samples.run, 0.95, true),
        ],
        notes: [
          `${runs.toLocaleString('en-US')} runs (each with its trigger, link and ${DELIVERIES_PER_RUN} deliveries: ${(runs * DELIVERIES_PER_RUN).toLocaleString('en-US')} outbox rows, all sent) in a SQLite file, filled in ${fillSeconds.toFixed(1)} s through the store as the service fills it. The service with the console on (CONSOLE_ADMIN_TOKEN), signed in once through the form.`,
          `${requests} rounds of GET /healthz, GET /console/runs (first page, no filter) and GET /console/run?id=… (a different run each time), one after the other, after 10 warm-up rounds; time = request sent → whole answer read, from this process over loopback. Max: runs page ${Math.max(...samples.runs).toFixed(1)} ms, run page ${Math.max(...samples.run).toFixed(1)} ms, /healthz ${Math.max(...samples.health).toFixed(1)} ms.`,
        ],
      };
    } finally {
      await service.stop();
    }
  } finally {
    await emulator.close();
    rmSync(cwd, { recursive: true, force: true });
  }
}

/** Signs in through the sign-in form as a browser would; returns the session cookie. */
async function signIn(base: string): Promise<string> {
  const cookiesOf = (response: Response) => response.headers.getSetCookie().map((line) => line.split(';')[0] ?? '');
  const form = await fetch(`${base}/console/sign-in`, { redirect: 'manual' });
  const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
  const answer = await fetch(`${base}/console/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: cookiesOf(form).join('; '), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf, token: TOKEN, next: '/console/runs' }).toString(),
  });
  const session = cookiesOf(answer).find((line) => line.startsWith('agent_bridge_console='));
  if (answer.status !== 303 || !session) throw new Error(`console sign-in failed: ${answer.status}`);
  return session;
}
