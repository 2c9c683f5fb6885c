/**
 * The environment variables of docs/configuration.md, checked one by one (zod) and then as sets (the
 * run API's, the database's, and each surface's, which its config slice checks). Problems name the
 * variable, say what to do, and never contain a secret's value.
 */
import path from 'node:path';
import { z } from 'zod';
import { fail, optionalText, secret } from '../config-kit/env-checks.js';
import type { ConfigProblem } from '../config-kit/problem.js';
import { checkBaseUrl } from '../config-kit/urls.js';
import { BRIDGE_SECRET_MIN_LENGTH, LOG_LEVELS, type LogLevel } from '../config-kit/value-sets.js';
import { checkDatabaseUrl, type PostgresTarget } from './database-url.js';
import { SURFACE_SLICES, type SurfaceSecretVariable } from './surface-slices.js';
import { readTracingEnv, tracingEnvShape } from './tracing-env.js';
import type { TracingConfig } from '../config-kit/service-config.js';

export const DEFAULT_DATABASE_PATH = './data/agent-bridge.db';
export const DEFAULT_PORT = 3000;
export const DEFAULT_HOST = '0.0.0.0';

/** The service's own variables whose values are secrets, besides the surfaces'. */
const OWN_SECRETS = ['AGENT_API_KEY', 'DATABASE_URL', 'CONSOLE_ADMIN_TOKEN', 'AGENT_BRIDGE_SECRET', 'METRICS_TOKEN'] as const;

export type SecretVariable = (typeof OWN_SECRETS)[number] | SurfaceSecretVariable;

/** Variables whose values are secrets: never shown, only masked. The surfaces' come from their config slices. */
export const SECRET_VARIABLES = [
  'AGENT_API_KEY',
  ...SURFACE_SLICES.flatMap(({ config }) => config.variables.filter((variable) => variable.secret).map((variable) => variable.name)),
  ...OWN_SECRETS.slice(1),
] as readonly SecretVariable[];

/** The web console's admin token: long enough that guessing it, even without the rate limit, is hopeless. */
export const CONSOLE_TOKEN_MIN_LENGTH = 32;

export interface EnvSettings {
  agentApiBaseUrl: string | undefined;
  agentApiKey: string | undefined;
  /** Each surface's settings from its variables (its config slice's `readEnv`), by its name. */
  surfaces: Record<string, unknown>;
  /** `AGENT_BRIDGE_CONFIG` as given (resolved by the loader). */
  configFile: string | undefined;
  databasePath: string;
  /** `DATABASE_URL` (checked: postgres:// or postgresql://), when set. */
  databaseUrl: { url: string; masked: string; target: PostgresTarget; password: string | undefined } | undefined;
  port: number;
  host: string;
  logLevel: LogLevel;
  /** `CONSOLE_ADMIN_TOKEN`: turns the web console on with an admin sign-in. */
  consoleAdminToken: string | undefined;
  /** `PUBLIC_URL`: the service's public base (no trailing slash). */
  publicUrl: string | undefined;
  /** `AGENT_BRIDGE_SECRET`: seals people's stored API keys. */
  agentBridgeSecret: string | undefined;
  /** `METRICS_TOKEN`: when set, `GET /metrics` needs `Authorization: Bearer <token>`. */
  metricsToken: string | undefined;
  /** OpenTelemetry's `OTEL_*` variables: where traces go; undefined when tracing is off. */
  tracing: TracingConfig | undefined;
}

const agentApiBaseUrl = optionalText.transform((value, ctx) => {
  if (value === undefined) return value;
  const checked = checkBaseUrl(value);
  if (!checked.ok) return fail(ctx, checked.message, 'set it to the run API base, e.g. https://agents.example.com/api/v1');
  const pathname = checked.url.pathname.replace(/\/+$/, '');
  if (!pathname.endsWith('/api/v1')) {
    return fail(ctx, `must end in /api/v1 (its path is "${checked.url.pathname}")`, 'set it to the run API base, e.g. https://agents.example.com/api/v1');
  }
  return `${checked.url.protocol}//${checked.url.host}${pathname}`;
});

const DATABASE_URL_HINT = 'unset it to use SQLite at DATABASE_PATH';

const databaseUrl = optionalText.transform((value, ctx) => {
  if (value === undefined) return value;
  const checked = checkDatabaseUrl(value);
  if (!checked.ok) return fail(ctx, checked.message, DATABASE_URL_HINT);
  return { url: value, masked: checked.masked, target: checked.target, password: checked.password };
});

const CONSOLE_TOKEN_HINT = 'make one with: openssl rand -hex 32';

const consoleAdminToken = secret(CONSOLE_TOKEN_HINT).transform((value, ctx) => {
  if (value !== undefined && value.length < CONSOLE_TOKEN_MIN_LENGTH) {
    return fail(ctx, `is too short (${value.length} characters): it must have at least ${CONSOLE_TOKEN_MIN_LENGTH}`, CONSOLE_TOKEN_HINT);
  }
  return value;
});

const agentBridgeSecret = secret(CONSOLE_TOKEN_HINT).transform((value, ctx) => {
  if (value !== undefined && value.length < BRIDGE_SECRET_MIN_LENGTH) {
    return fail(ctx, `is too short (${value.length} characters): it must have at least ${BRIDGE_SECRET_MIN_LENGTH}`, CONSOLE_TOKEN_HINT);
  }
  return value;
});

/** Long enough that guessing it at the speed of HTTP requests is hopeless (`/metrics` has no rate limit). */
export const METRICS_TOKEN_MIN_LENGTH = 16;

const metricsToken = secret(CONSOLE_TOKEN_HINT).transform((value, ctx) => {
  if (value !== undefined && value.length < METRICS_TOKEN_MIN_LENGTH) {
    return fail(ctx, `is too short (${value.length} characters): it must have at least ${METRICS_TOKEN_MIN_LENGTH}`, CONSOLE_TOKEN_HINT);
  }
  return value;
});

const publicUrl = optionalText.transform((value, ctx) => {
  if (value === undefined) return value;
  const checked = checkBaseUrl(value);
  if (!checked.ok) return fail(ctx, checked.message, 'set it to the address people open, e.g. https://agent-bridge.example.com');
  return checked.url.href.replace(/\/+$/, '');
});

const port = optionalText.transform((value, ctx) => {
  if (value === undefined) return DEFAULT_PORT;
  if (!/^\d+$/.test(value) || Number(value) > 65_535) {
    return fail(ctx, `must be a whole number from 0 to 65535 (found "${value.slice(0, 20)}")`, `unset means ${DEFAULT_PORT}`);
  }
  return Number(value);
});

const logLevel = optionalText.transform((value, ctx): LogLevel => {
  if (value === undefined) return 'info';
  const lower = value.toLowerCase();
  if ((LOG_LEVELS as readonly string[]).includes(lower)) return lower as LogLevel;
  return fail(ctx, `must be one of: ${LOG_LEVELS.join(', ')} (found "${value.slice(0, 20)}")`);
});

/** Every surface's variables, in the order of the list of surfaces. */
function surfaceEnvShape(): z.ZodRawShape {
  return Object.assign({}, ...SURFACE_SLICES.map(({ config }) => config.envShape)) as z.ZodRawShape;
}

export const envSchema = z.object({
  AGENT_API_BASE_URL: agentApiBaseUrl,
  AGENT_API_KEY: secret('set it to the run API key'),
  ...surfaceEnvShape(),
  AGENT_BRIDGE_CONFIG: optionalText,
  DATABASE_PATH: optionalText,
  DATABASE_URL: databaseUrl,
  PORT: port,
  HOST: optionalText,
  LOG_LEVEL: logLevel,
  CONSOLE_ADMIN_TOKEN: consoleAdminToken,
  PUBLIC_URL: publicUrl,
  AGENT_BRIDGE_SECRET: agentBridgeSecret,
  METRICS_TOKEN: metricsToken,
  ...tracingEnvShape,
});

/** Variables that must be set together: the run API's, each surface's and the database's. */
function setProblems(env: Record<string, string>): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const has = (name: string) => env[name] !== undefined;

  if (has('AGENT_API_BASE_URL') && !has('AGENT_API_KEY')) {
    problems.push({
      where: 'AGENT_API_KEY',
      message: 'required when AGENT_API_BASE_URL is set — set it to the run API key (it is sent as a bearer token)',
      hint: 'or unset AGENT_API_BASE_URL to use the built-in emulator',
    });
  }
  for (const { config } of SURFACE_SLICES) problems.push(...config.setProblems(env));

  if (has('DATABASE_URL') && has('DATABASE_PATH')) {
    problems.push({
      where: 'DATABASE_URL',
      message: 'both DATABASE_URL (PostgreSQL) and DATABASE_PATH (SQLite) are set — set one of them',
      hint: 'unset DATABASE_PATH to use PostgreSQL, or unset DATABASE_URL to use SQLite; to move a SQLite database, see agent-bridge db copy',
    });
  }

  return problems;
}

/**
 * Checks the merged environment (values already trimmed, empty ones removed). Relative
 * `DATABASE_PATH` is resolved against `cwd`; `:memory:` is kept as it is.
 */
export function parseEnvironment(env: Record<string, string>, cwd: string): { settings: EnvSettings | undefined; problems: ConfigProblem[] } {
  const problems: ConfigProblem[] = [];
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const hint = (issue as { params?: { hint?: unknown } }).params?.hint;
      problems.push({
        where: String(issue.path[0] ?? 'environment'),
        message: issue.message,
        ...(typeof hint === 'string' ? { hint } : {}),
      });
    }
  }
  problems.push(...setProblems(env));
  if (!parsed.success || problems.length > 0) return { settings: undefined, problems };

  const v = parsed.data;
  const surfaces: Record<string, unknown> = {};
  for (const { name, config } of SURFACE_SLICES) {
    const read = config.readEnv(v, cwd);
    if ('problem' in read) return { settings: undefined, problems: [read.problem] };
    surfaces[name] = read.env;
  }
  const databasePath = v.DATABASE_PATH ?? DEFAULT_DATABASE_PATH;
  return {
    problems,
    settings: {
      agentApiBaseUrl: v.AGENT_API_BASE_URL,
      agentApiKey: v.AGENT_API_KEY,
      surfaces,
      configFile: v.AGENT_BRIDGE_CONFIG,
      databasePath: databasePath === ':memory:' ? databasePath : path.resolve(cwd, databasePath),
      databaseUrl: v.DATABASE_URL,
      port: v.PORT,
      host: v.HOST ?? DEFAULT_HOST,
      logLevel: v.LOG_LEVEL,
      consoleAdminToken: v.CONSOLE_ADMIN_TOKEN,
      publicUrl: v.PUBLIC_URL,
      agentBridgeSecret: v.AGENT_BRIDGE_SECRET,
      metricsToken: v.METRICS_TOKEN,
      tracing: readTracingEnv(v),
    },
  };
}
