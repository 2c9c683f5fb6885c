/**
 * `loadConfig`: environment (+ `.env`) and the optional YAML file, validated together into one
 * `AppConfig`. Every problem found anywhere is collected and thrown as one `ConfigError`.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { environmentSources, mergeEnvironment, readDotEnv, type Environment } from './env.js';
import { parseEnvironment, SECRET_VARIABLES, type EnvSettings } from './env-schema.js';
import { compact, toLimits, toRoute } from '../config-kit/route-values.js';
import { fileSchema, type FileConfig } from './file-schema.js';
import { ROUTE_PARTS, SURFACE_SLICES } from './surface-slices.js';
import { ConfigError, zodIssueToProblems, type ConfigProblem } from './problems.js';
import { placesOnSurfacesOff } from './surfaces-off.js';
import { configWarnings } from './config-warnings.js';
import type { AppConfig, ConsoleSignIns, ScheduleConfig, SurfaceSections } from './types.js';

export const DEFAULT_CONFIG_FILE = 'agent-bridge.yml';

export interface LoadConfigInput {
  /** The process environment (pass `process.env`); never modified. */
  env: Environment;
  /** Base for `.env`, the default config file and relative paths. */
  cwd: string;
  /** A config file named on the command line; wins over `AGENT_BRIDGE_CONFIG`. */
  configPath?: string;
  /**
   * Whether this process delivers what the service owes people (`serve`, and `config check` on its
   * behalf): then a place on a surface that is off is a problem. Default true. Commands that only read
   * or record in the database pass false: an operator's shell may lack a token the service has.
   */
  delivers?: boolean;
}

interface Located {
  file: string | undefined;
  problems: ConfigProblem[];
}

/** The config file to read: named on the command line, by AGENT_BRIDGE_CONFIG, or the default if present. */
function locateConfigFile(input: LoadConfigInput, env: Record<string, string>): Located {
  const named = input.configPath?.trim()
    ? { given: input.configPath.trim(), source: '--config' }
    : env.AGENT_BRIDGE_CONFIG
      ? { given: env.AGENT_BRIDGE_CONFIG, source: 'AGENT_BRIDGE_CONFIG' }
      : undefined;
  const file = path.resolve(input.cwd, named?.given ?? DEFAULT_CONFIG_FILE);
  try {
    if (statSync(file).isFile()) return { file, problems: [] };
    return {
      file: undefined,
      problems: [{ where: named?.source ?? file, message: `${file} is not a file — name a YAML file` }],
    };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (!named && code === 'ENOENT') return { file: undefined, problems: [] };
    return {
      file: undefined,
      problems: [
        {
          where: named?.source ?? file,
          message: code === 'ENOENT' ? `names a file that does not exist (${file})` : `cannot be read (${code ?? 'error'}): ${file}`,
          hint: named?.source === '--config' ? 'fix the path' : `fix the path, or unset it to use ./${DEFAULT_CONFIG_FILE} when present`,
        },
      ],
    };
  }
}

/** How problems in the file are labelled: relative to `cwd` when inside it. */
function fileLabel(file: string, cwd: string): string {
  const relative = path.relative(cwd, file);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
}

/** Reads and validates the YAML file. */
function readConfigFile(file: string, label: string): { config?: FileConfig; problems: ConfigProblem[] } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return { problems: [{ where: label, message: `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})` }] };
  }
  const doc = parseDocument(text, { prettyErrors: true });
  if (doc.errors.length > 0) {
    return {
      problems: doc.errors.map((error) => {
        const position = error.linePos?.[0];
        // The first line only: the rest quotes the file, which is not ours to repeat.
        const message = (error.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
        return {
          where: position ? `${label}: line ${position.line}, column ${position.col}` : label,
          message: `YAML syntax error: ${message}`,
          hint: 'check the indentation and quoting around that position',
        };
      }),
    };
  }
  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: 100 }) ?? {};
  } catch (error) {
    return { problems: [{ where: label, message: `cannot be read as YAML: ${(error as Error).message.split('\n')[0]}` }] };
  }
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    return {
      problems: [
        {
          where: label,
          message: `must be a mapping of keys (${Object.keys(fileSchema.shape).join(', ')}) at the top level`,
        },
      ],
    };
  }
  const parsed = fileSchema.safeParse(raw);
  if (parsed.success) return { config: parsed.data, problems: [] };
  return { problems: parsed.error.issues.flatMap((issue) => zodIssueToProblems(issue, label, raw)) };
}

function toSchedule(schedule: FileConfig['schedules'][number]): ScheduleConfig {
  return {
    name: schedule.name,
    cron: schedule.cron.trim(),
    timezone: schedule.timezone,
    prompt: schedule.prompt,
    ...toRoute(schedule),
    overlap: schedule.overlap,
    catchUp: schedule.catch_up,
    enabled: schedule.enabled,
    pauseAfterFailures: schedule.pause_after_failures,
    notify: compact(scheduleNotify(schedule.notify)),
  };
}

/** A schedule's `notify` as the service reads it: each surface's key of it under the field that surface names. */
function scheduleNotify(notify: Readonly<Record<string, unknown>>): Record<string, string | undefined> {
  return Object.fromEntries(
    SURFACE_SLICES.flatMap(({ config }) =>
      config.scheduleNotify ? [[config.scheduleNotify.field, notify[config.scheduleNotify.key] as string | undefined]] : [],
    ),
  );
}

/** Each surface's section, by its name, in the order of the list of surfaces. */
function surfaceSections(env: EnvSettings, file: FileConfig): SurfaceSections {
  return Object.fromEntries(SURFACE_SLICES.map(({ name, config }) => [name, config.resolve(env.surfaces[name], file[name], ROUTE_PARTS)])) as SurfaceSections;
}

/** The console sign-ins surfaces offer whose variables are set, each under its own key. */
function consoleSignIns(env: EnvSettings): ConsoleSignIns {
  return Object.fromEntries(
    SURFACE_SLICES.flatMap(({ name, config }) => {
      const value = config.signIn?.resolve(env.surfaces[name]);
      return config.signIn && value !== undefined ? [[config.signIn.key, value]] : [];
    }),
  );
}

function build(env: EnvSettings, file: FileConfig, configFile: string | undefined): AppConfig {
  const defaults = toRoute(file.defaults);
  // docs/configuration.md: `defaults.config` is `{}` unless the defaults dispatch to a factory (no config then).
  if (defaults.config === undefined && defaults.factory_uid === undefined) defaults.config = {};

  return {
    configFile,
    agentApi: { baseUrl: env.agentApiBaseUrl, apiKey: env.agentApiKey, emulated: env.agentApiBaseUrl === undefined },
    ...surfaceSections(env, file),
    defaults,
    tracker: { intervalMs: file.tracker.interval, pageSize: file.tracker.page_size },
    intake: { retryWindowMs: file.intake.retry_window, dedupeRetentionMs: file.intake.dedupe_retention },
    schedules: file.schedules.map(toSchedule),
    audit: { retentionMs: file.audit.retention },
    console: {
      admins: [...file.console.admins],
      ...compact({ adminToken: env.consoleAdminToken }),
      ...consoleSignIns(env),
    },
    limits: { perPerson: toLimits(file.limits.per_person) },
    people: { attribution: file.people.attribution, ...compact({ secret: env.agentBridgeSecret }) },
    database: env.databaseUrl
      ? { kind: 'postgres', url: env.databaseUrl.url, maskedUrl: env.databaseUrl.masked, target: env.databaseUrl.target, password: env.databaseUrl.password }
      : { kind: 'sqlite', path: env.databasePath },
    http: { port: env.port, host: env.host, ...compact({ publicUrl: env.publicUrl, metricsToken: env.metricsToken }) },
    logLevel: env.logLevel,
    ...compact({ tracing: env.tracing }),
  };
}

/**
 * Loads and validates the whole configuration. Throws `ConfigError` listing every problem
 * (environment and file together); nothing is started on a partial configuration.
 */
export function loadConfig(input: LoadConfigInput): AppConfig {
  const problems: ConfigProblem[] = [];
  const dotenv = readDotEnv(input.cwd);
  problems.push(...dotenv.problems);
  const env = mergeEnvironment(input.env, dotenv.values);

  const environment = parseEnvironment(env, input.cwd);
  problems.push(...environment.problems);

  const located = locateConfigFile(input, env);
  problems.push(...located.problems);
  let file: FileConfig | undefined;
  if (located.file !== undefined) {
    const read = readConfigFile(located.file, fileLabel(located.file, input.cwd));
    problems.push(...read.problems);
    file = read.config;
  } else if (located.problems.length === 0) {
    const parsed = fileSchema.safeParse({});
    if (parsed.success) file = parsed.data;
  }

  if (file && environment.settings && file.people.attribution !== 'service' && environment.settings.agentBridgeSecret === undefined) {
    problems.push({
      where: 'AGENT_BRIDGE_SECRET',
      message: `required when people.attribution is ${file.people.attribution}: it seals the personal API keys people connect`,
      hint: 'make one with: openssl rand -hex 32 (and keep it: without it the stored keys cannot be opened)',
    });
  }
  if (file && located.file !== undefined && input.delivers !== false) {
    problems.push(...placesOnSurfacesOff(file, env, fileLabel(located.file, input.cwd)));
  }
  if (problems.length > 0 || environment.settings === undefined || file === undefined) {
    throw new ConfigError(problems);
  }
  const config = build(environment.settings, file, located.file);
  const label = located.file !== undefined ? fileLabel(located.file, input.cwd) : DEFAULT_CONFIG_FILE;
  return { ...config, secretSources: environmentSources(SECRET_VARIABLES, input.env, dotenv.values), warnings: configWarnings(config, label) };
}
