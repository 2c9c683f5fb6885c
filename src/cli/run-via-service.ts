/**
 * `agent-bridge run` without `AGENT_API_BASE_URL`: the prompt is handed to the agent-bridge service
 * that shares this folder's database (as `schedules trigger` hands it a fire), as a start request of
 * source `cli`. The service — with its built-in emulator when it has no run API configured — creates
 * and tracks the run, so it shows in the console like every other; `--wait` follows it in the
 * database. Nothing is stored when no service runs on the database: the request would wait unseen.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { loadConfig } from '../config/index.js';
import type { AppConfig } from '../config/types.js';
import { consoleAccess } from '../console/console-config.js';
import { IntakeService } from '../core/intake/intake-service.js';
import { isTerminalState, type RunItem } from '../core/ports/agent-runs.js';
import { systemClock } from '../core/ports/clock.js';
import type { OutboxMessage, RunSnapshot } from '../core/ports/messages.js';
import type { Store, StoredTrigger } from '../core/ports/store.js';
import { renderText } from '../core/outbox/render-text.js';
import { titleFrom } from '../core/title.js';
import { describeDatabase, openStore } from '../store/open-store.js';
import { printJson, type CliContext } from './context.js';
import { ExitCode, ExitWith, UsageError } from './exit-codes.js';

/** What `run` is asked, as far as the service path cares. */
export interface ServiceRunOptions {
  title?: string;
  wait?: boolean;
  json?: boolean;
}

const DIRECT = 'or set AGENT_API_BASE_URL and AGENT_API_KEY to call a run API directly';

/** The service's database, opened; or why there is none to hand a request to (exit 2, nothing stored). */
async function serviceStore(config: AppConfig, now: number): Promise<Store> {
  const database = config.database;
  const where = describeDatabase(database);
  if (database.kind === 'sqlite' && database.path === ':memory:') throw new UsageError(`DATABASE_PATH is :memory:, which no service shares; ${DIRECT}`);
  if (database.kind === 'sqlite' && !existsSync(database.path)) {
    throw new UsageError(`no agent-bridge database at ${where}: start the service here first (\`npm start\` or \`agent-bridge serve\`), ${DIRECT}`);
  }
  const store = await openStore(database);
  if (await serviceRuns(store, now)) return store;
  await store.close();
  throw new UsageError(`no agent-bridge service is running on ${where}: start it (\`npm start\`) in another shell and run this again, ${DIRECT}`);
}

/** Whether a service process beats on the database (it stopped neither cleanly nor by missing its beats). */
async function serviceRuns(store: Store, now: number): Promise<boolean> {
  return (await store.processes.list(1000)).some((process) => process.stoppedAt === null && process.aliveUntil > now);
}

/** Where a person opens the run in the console, when the service has one. */
function consoleLink(config: AppConfig, runId: string): string | undefined {
  // Port 0 (a test's random port) is not where the service listens: there is no address to give.
  if (consoleAccess(config).mode === 'off' || (config.http.port === 0 && !config.http.publicUrl)) return undefined;
  const host = ['0.0.0.0', '::', '127.0.0.1', 'localhost'].includes(config.http.host) ? '127.0.0.1' : config.http.host;
  return `${config.http.publicUrl ?? `http://${host}:${config.http.port}`}/console/run?id=${encodeURIComponent(runId)}`;
}

/** Hands the prompt to the service; prints the run id, or with `--wait` follows the run to its end. */
export async function runViaService(context: CliContext, prompt: string, options: ServiceRunOptions, pollMs: number): Promise<void> {
  const config = loadConfig({ env: context.env, cwd: context.cwd, delivers: false });
  const store = await serviceStore(config, context.now());
  try {
    const id = randomBytes(12).toString('hex');
    const anchor = `log:cli:${id}`;
    const intake = new IntakeService({ store, clock: { now: context.now, setTimer: (fn, ms) => systemClock.setTimer(fn, ms) } });
    await intake.submit({
      kind: 'start',
      key: `cli:${id}`,
      source: 'cli',
      anchor,
      payload: { prompt, title: titleFrom(options.title ?? prompt, 'CLI run'), origin: { source: 'cli' }, destinations: [anchor] },
    });
    const runId = await startedRun(context, store, `cli:${id}`, pollMs);
    const link = consoleLink(config, runId);
    if (!options.wait) {
      if (options.json) printJson(context, { run_id: runId, state: (await store.trackedRuns.get(runId))?.state ?? 'QUEUED' });
      else {
        context.out(runId);
        context.err(`Started run ${runId} through the agent-bridge service on ${describeDatabase(config.database)}.`);
        context.err(link ? `Follow it in the console: ${link} (or with --wait)` : 'Follow it with --wait.');
      }
      return;
    }
    if (!options.json) context.out(`Started run ${runId}.${link ? ` In the console: ${link}` : ''}`);
    const final = await followRun(context, store, runId, anchor, pollMs, options.json === true);
    if (options.json) printJson(context, final);
    else printEnd(context, final);
    if (final.state !== 'SUCCEEDED') throw new ExitWith(ExitCode.runNotSucceeded);
  } finally {
    await store.close();
  }
}

/**
 * Waits for the service's intake worker to create the run and answers its id. A request the service
 * gave up on (the run API kept failing: exit 3) or refused (a limit, a key: exit 1) says why and what
 * it owes people; a service that stops meanwhile leaves the request for the next one (exit 2).
 */
async function startedRun(context: CliContext, store: Store, key: string, pollMs: number): Promise<string> {
  for (;;) {
    const trigger = await store.triggers.getByKey(key);
    if (trigger?.runId) return trigger.runId;
    if (trigger && (trigger.state === 'failed' || trigger.state === 'ignored')) return notStarted(context, store, trigger);
    if (!(await serviceRuns(store, context.now()))) {
      throw new UsageError('the agent-bridge service stopped before it started the run; the request is stored and starts when the service runs again');
    }
    await context.sleep(pollMs);
  }
}

async function notStarted(context: CliContext, store: Store, trigger: StoredTrigger): Promise<never> {
  const owed = await store.outbox.list({ destination: trigger.anchor });
  const said = owed.filter((row) => row.kind !== 'received').map((row) => renderText(row.payload as OutboxMessage));
  context.err(`No run was started: ${said.length > 0 ? said.join(' ') : (trigger.lastError ?? 'no reason given')}`);
  throw new ExitWith(trigger.state === 'failed' ? ExitCode.agentApi : ExitCode.runNotSucceeded);
}

/** The latest message the run owes at its place: its status text and pull requests as the tracker saw them. */
async function latestSnapshot(store: Store, anchor: string): Promise<RunSnapshot | undefined> {
  const rows = await store.outbox.list({ destination: anchor });
  for (const row of [...rows].reverse()) {
    const message = row.payload as OutboxMessage;
    if (message.kind === 'status' || message.kind === 'announce' || message.kind === 'stopping') return message.run;
  }
  return undefined;
}

/** Prints each state the tracker records until the run ends; answers the run as a RunItem. */
async function followRun(context: CliContext, store: Store, runId: string, anchor: string, pollMs: number, quiet: boolean): Promise<RunItem> {
  const started = context.now();
  let shown: string | undefined;
  let sessionShown = false;
  for (;;) {
    const run = await store.trackedRuns.get(runId);
    const snapshot = await latestSnapshot(store, anchor);
    const state = run?.state ?? 'QUEUED';
    const status = snapshot?.state === state ? snapshot.statusText : undefined;
    if (!quiet && state !== shown) {
      context.out(`[${((context.now() - started) / 1000).toFixed(1).padStart(6)}s] ${state}${status ? `  ${status}` : ''}`);
      if (state === 'BLOCKED') context.out('         the agent is waiting for input (BLOCKED)');
    }
    shown = state;
    if (!quiet && run?.sessionLink && !sessionShown) {
      context.out(`         session: ${run.sessionLink}`);
      sessionShown = true;
    }
    if (run && isTerminalState(run.state)) {
      return {
        run_id: runId,
        title: run.title ?? '',
        state: run.state,
        ...(status !== undefined && { status_message: status }),
        ...(run.sessionLink !== null && { session_link: run.sessionLink }),
        ...(run.serverUpdatedAt !== null && { updated_at: run.serverUpdatedAt }),
        created_at: new Date(run.createdAt).toISOString(),
        source: 'cli',
        artifacts: (snapshot?.pullRequests ?? []).map((url) => ({ artifact_type: 'PULL_REQUEST', data: { url } })),
      };
    }
    await context.sleep(pollMs);
  }
}

function printEnd(context: CliContext, run: RunItem): void {
  const status = typeof run.status_message === 'string' ? run.status_message : undefined;
  context.out(run.state === 'SUCCEEDED' ? `Run ${run.run_id} succeeded.` : `Run ${run.run_id} ended ${run.state}${status ? `: ${status}` : '.'}`);
  if (run.session_link) context.out(`Session: ${run.session_link}`);
  for (const artifact of run.artifacts ?? []) {
    const url = artifact.data?.['url'];
    if (typeof url === 'string') context.out(`Pull request: ${url}`);
  }
}
