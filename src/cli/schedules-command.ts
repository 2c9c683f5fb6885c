import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Command } from 'commander';
import { loadConfig } from '../config/index.js';
import type { AppConfig } from '../config/types.js';
import { AgentApiError } from '../core/ports/agent-runs.js';
import { systemClock, type Clock } from '../core/ports/clock.js';
import { silentLogger } from '../core/ports/logger.js';
import { IntakeService } from '../core/intake/intake-service.js';
import { registeredSurfaces } from '../compose/surfaces.js';
import type { FireOutcome, RunLookup } from '../core/schedules/schedule-fire.js';
import { scheduleDestinations, type ScheduleDefinition } from '../core/schedules/schedule-definition.js';
import { readPause, writePause } from '../core/schedules/schedule-pause.js';
import { scheduleStatus } from '../core/schedules/schedule-status.js';
import { Scheduler } from '../core/schedules/scheduler.js';
import type { Store } from '../core/ports/store.js';
import { cronCalendar } from '../cron-calendar/cron-calendar.js';
import { describeDatabase, openStore } from '../store/open-store.js';
import { clientFromEnv, printJson, type CliContext } from './context.js';
import { ExitWith, UsageError } from './exit-codes.js';
import { formatFireTime } from '../cron-calendar/fire-time.js';
import { renderScheduleList, scheduleJson, type ScheduleHeader } from './schedules-format.js';

/** A configured schedule with what the CLI shows about it. */
type CliSchedule = ScheduleDefinition & ScheduleHeader;

interface Loaded {
  config: AppConfig;
  schedules: CliSchedule[];
}

function load(context: CliContext, configPath: string | undefined): Loaded {
  const config = loadConfig({ env: context.env, cwd: context.cwd, delivers: false, ...(configPath && { configPath }) });
  const schedules = config.schedules.map((schedule) => {
    try {
      return { ...schedule, calendar: cronCalendar(schedule.cron, schedule.timezone) };
    } catch (error) {
      throw new UsageError(`schedule "${schedule.name}": ${error instanceof Error ? error.message : String(error)}`);
    }
  });
  return { config, schedules };
}

/** The named schedule, or a usage error (exit 2) naming the configured ones. */
function find(loaded: Loaded, name: string): CliSchedule {
  const schedule = loaded.schedules.find((candidate) => candidate.name === name);
  if (schedule) return schedule;
  const where = loaded.config.configFile ?? 'the config (no agent-bridge.yml found; set AGENT_BRIDGE_CONFIG or use --config)';
  const known = loaded.schedules.map((candidate) => candidate.name);
  throw new UsageError(
    known.length > 0
      ? `no schedule named "${name}" in ${where}; configured: ${known.join(', ')}`
      : `no schedule named "${name}": ${where} configures no schedules`,
  );
}

/**
 * `list` only reads, so a database that does not exist yet is not created: there is simply no
 * history. The other commands create it, as the service would, because what they record must be
 * there when it starts.
 */
function databaseExists(config: AppConfig): boolean {
  const database = config.database;
  return database.kind === 'postgres' || database.path === ':memory:' || existsSync(database.path);
}

/** Opens the service's database (DATABASE_PATH or DATABASE_URL) for `work`, and closes it. */
async function withStore<T>(config: AppConfig, work: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(config.database);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/**
 * How `schedules trigger` checks `overlap: skip`: the run API when AGENT_API_BASE_URL is set,
 * else the run states the service's tracker stored (a service on the built-in emulator cannot be
 * reached from here).
 */
function runLookup(context: CliContext, store: Store): { lookup: RunLookup; close: () => Promise<void> } {
  if (context.env['AGENT_API_BASE_URL']) {
    const client = clientFromEnv(context);
    return { lookup: client, close: () => client.close() };
  }
  const lookup: RunLookup = {
    getRun: async (runId) => {
      const run = await store.trackedRuns.get(runId);
      if (!run) throw new AgentApiError(`run ${runId} is not in the database`, { kind: 'not_found', status: 404, retryable: false });
      return { run_id: runId, state: run.state };
    },
  };
  return { lookup, close: async () => {} };
}

const CONFIG_OPTION = ['--config <file>', 'config file (default: AGENT_BRIDGE_CONFIG, else ./agent-bridge.yml when present)'] as const;

/** `schedules list`: each schedule's calendar, the history the database holds, and whether it is paused. */
async function listSchedules(context: CliContext, options: { config?: string; json?: boolean }): Promise<void> {
  const loaded = load(context, options.config);
  const now = context.now();
  const show = async (store: Store | undefined) => {
    const entries = [];
    for (const schedule of loaded.schedules) entries.push({ header: schedule, status: await scheduleStatus(schedule, store, now) });
    if (options.json)
      return printJson(
        context,
        entries.map(({ header, status }) => scheduleJson(header, status)),
      );
    if (entries.length === 0)
      return context.out(`No schedules configured${loaded.config.configFile ? ` in ${loaded.config.configFile}` : ' (no agent-bridge.yml found)'}.`);
    if (!store) context.out(`No database at ${describeDatabase(loaded.config.database)} yet: no fires recorded.\n`);
    context.out(renderScheduleList(entries));
  };
  if (databaseExists(loaded.config)) await withStore(loaded.config, show);
  else await show(undefined);
}

/** What `schedules trigger` says once the fire is recorded; exit 1 when it was skipped or taken. */
async function reportFire(context: CliContext, loaded: Loaded, schedule: CliSchedule, outcome: FireOutcome, db: Store): Promise<void> {
  const name = schedule.name;
  if (outcome.status === 'skipped') {
    context.out(`Did not fire ${name}: ${outcome.reason}.`);
    throw new ExitWith(1);
  }
  if (outcome.status === 'taken') {
    context.out(`Slot ${outcome.slot} of ${name} was already recorded by another process; nothing more was done.`);
    throw new ExitWith(1);
  }
  context.out(`Fired ${name} (slot ${outcome.slot}).`);
  context.out(
    `The trigger is stored in ${describeDatabase(loaded.config.database)}; the running agent-bridge service (same database) ` +
      `creates the run within seconds and reports to ${scheduleDestinations(schedule, registeredSurfaces(loaded.config)).join(', ')}.`,
  );
  const pause = await readPause(db.settings, name);
  if (pause?.paused) context.out(`Note: ${name} is paused; a manual trigger fires anyway. Resume with \`agent-bridge schedules resume ${name}\`.`);
}

/** `schedules trigger`: a fire recorded like any other, for the running service to start. */
async function triggerSchedule(context: CliContext, name: string, options: { config?: string }): Promise<void> {
  const loaded = load(context, options.config);
  const schedule = find(loaded, name);
  await withStore(loaded.config, async (db) => {
    const api = runLookup(context, db);
    const clock: Clock = { now: context.now, setTimer: (fn, ms) => systemClock.setTimer(fn, ms) };
    const owner = `cli:${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
    const scheduler = new Scheduler({
      store: db,
      intake: new IntakeService({ store: db, clock }),
      agentRuns: api.lookup,
      clock,
      logger: silentLogger,
      owner,
      schedules: loaded.schedules,
      surfaces: registeredSurfaces(loaded.config),
    });
    try {
      await reportFire(context, loaded, schedule, await scheduler.trigger(name), db);
    } finally {
      await scheduler.stop();
      await api.close();
    }
  });
}

/** `schedules pause`: every process on the database skips the schedule's slots until it is resumed. */
async function pauseSchedule(context: CliContext, name: string, options: { config?: string }): Promise<void> {
  const loaded = load(context, options.config);
  find(loaded, name);
  await withStore(loaded.config, async ({ settings }) => {
    const current = await readPause(settings, name);
    if (current?.paused) return context.out(`${name} is already paused${current.reason ? ` (${current.reason})` : ''}.`);
    await writePause(settings, name, { paused: true, at: context.now(), reason: 'paused with `agent-bridge schedules pause`' });
    context.out(`Paused ${name}: its slots are skipped until \`agent-bridge schedules resume ${name}\`.`);
  });
}

/** `schedules resume`: the schedule fires again; says its next fire. */
async function resumeSchedule(context: CliContext, name: string, options: { config?: string }): Promise<void> {
  const loaded = load(context, options.config);
  const schedule = find(loaded, name);
  await withStore(loaded.config, async ({ settings }) => {
    const current = await readPause(settings, name);
    if (!current?.paused) return context.out(`${name} is not paused.`);
    await writePause(settings, name, { paused: false, at: context.now() });
    const [next] = schedule.calendar.next(context.now(), 1);
    context.out(`Resumed ${name}.${next && schedule.enabled ? ` Next fire: ${formatFireTime(next.at, schedule.timezone)}.` : ''}`);
  });
}

/** `agent-bridge schedules`: list, trigger, pause and resume the schedules of agent-bridge.yml. */
export function registerSchedulesCommand(program: Command, context: CliContext): void {
  const schedules = program.command('schedules').description('the cron schedules of agent-bridge.yml: list, fire now, pause, resume');
  schedules
    .command('list')
    .description('each schedule: cron, timezone, the next three fire times (local and UTC), the last fire with its run and outcome, paused or not')
    .option(...CONFIG_OPTION)
    .option('--json', 'print a JSON array only')
    .action((options: { config?: string; json?: boolean }) => listSchedules(context, options));
  schedules
    .command('trigger')
    .description('fire a schedule now: recorded like any fire (slot manual:<time>) and subject to overlap; the running service starts the run')
    .argument('<name>')
    .option(...CONFIG_OPTION)
    .action((name: string, options: { config?: string }) => triggerSchedule(context, name, options));
  schedules
    .command('pause')
    .description('stop firing a schedule (its slots are recorded as skipped) until resumed; every process on the database obeys')
    .argument('<name>')
    .option(...CONFIG_OPTION)
    .action((name: string, options: { config?: string }) => pauseSchedule(context, name, options));
  schedules
    .command('resume')
    .description('fire a paused schedule again (failed runs are counted afresh from now)')
    .argument('<name>')
    .option(...CONFIG_OPTION)
    .action((name: string, options: { config?: string }) => resumeSchedule(context, name, options));
}
