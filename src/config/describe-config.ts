/**
 * What `config check` and the start-up log show: the effective configuration with every secret
 * masked, and one line per integration saying what is on — and, for what is off, how to turn it on.
 */
import { describeRoute, maskSecret, type SecretSource } from '../config-kit/describe-parts.js';
import { formatDuration } from '../config-kit/duration.js';
import { sectionOf, signInOf, SURFACE_SLICES } from './surface-slices.js';
import type { AppConfig } from './types.js';

export { maskSecret };

type SourceOf = (variable: string) => SecretSource | undefined;

/** Each surface's section as its config slice shows it. */
function describeSurfaces(config: AppConfig, source: SourceOf): Record<string, unknown> {
  return Object.fromEntries(SURFACE_SLICES.map(({ name, config: slice }) => [name, slice.describe(sectionOf(config, name), source)]));
}

/** The console sign-ins surfaces offer: each shown under its key, `null` when its variables are not set. */
function describeSignIns(config: AppConfig, source: SourceOf): Record<string, unknown> {
  return Object.fromEntries(
    SURFACE_SLICES.flatMap((slice) => {
      const signIn = slice.config.signIn;
      const value = signInOf(config, slice);
      return signIn ? [[signIn.key, value === undefined ? null : signIn.describe(value, source)]] : [];
    }),
  );
}

/** The effective configuration, shaped like `AppConfig`, with every secret masked. */
export function describeConfig(config: AppConfig): Record<string, unknown> {
  const source = (variable: string) => config.secretSources?.[variable];
  return {
    configFile: config.configFile ?? null,
    agentApi: {
      baseUrl: config.agentApi.baseUrl ?? null,
      apiKey: maskSecret(config.agentApi.apiKey, source('AGENT_API_KEY')) ?? null,
      emulated: config.agentApi.emulated,
    },
    ...describeSurfaces(config, source),
    defaults: describeRoute(config.defaults),
    tracker: { ...config.tracker, interval: formatDuration(config.tracker.intervalMs) },
    intake: {
      ...config.intake,
      retryWindow: formatDuration(config.intake.retryWindowMs),
      dedupeRetention: formatDuration(config.intake.dedupeRetentionMs),
    },
    audit: { retention: formatDuration(config.audit.retentionMs) },
    schedules: config.schedules.map((schedule) => ({
      ...describeRoute(schedule),
      notify: { ...schedule.notify },
    })),
    console: { admins: [...config.console.admins], ...describeSignIns(config, source) },
    limits: { perPerson: { ...config.limits.perPerson } },
    database: config.database.kind === 'postgres' ? { kind: 'postgres', url: config.database.maskedUrl } : { ...config.database },
    http: { ...config.http, ...(config.http.metricsToken !== undefined && { metricsToken: maskSecret(config.http.metricsToken, source('METRICS_TOKEN')) }) },
    logLevel: config.logLevel,
    // Header values are the collector's credentials: only their names are shown.
    tracing: config.tracing ? { ...config.tracing, headers: Object.keys(config.tracing.headers) } : null,
  };
}

/** One line per integration: what is on, and for what is off, how to turn it on. */
export function integrationSummary(config: AppConfig): string[] {
  const lines: string[] = [];

  lines.push(
    config.agentApi.emulated
      ? 'Run API: EMULATED in-process (AGENT_API_BASE_URL is unset) — runs are simulated locally; ' +
          'set AGENT_API_BASE_URL (ending in /api/v1) and AGENT_API_KEY to use the real run API'
      : `Run API: ${config.agentApi.baseUrl ?? ''} (key set)`,
  );

  for (const { name, config: slice } of SURFACE_SLICES) lines.push(slice.summary(sectionOf(config, name)));
  if (config.tracing) lines.push(`Traces: OTLP/HTTP to ${config.tracing.url} as ${config.tracing.serviceName}`);

  const schedules = config.schedules;
  if (schedules.length === 0) {
    lines.push('Schedules: none — add a "schedules:" list to agent-bridge.yml to run prompts on a cron');
  } else {
    const enabled = schedules.filter((schedule) => schedule.enabled);
    const names = schedules.map((schedule) => `${schedule.name}${schedule.enabled ? '' : ' (disabled)'}`).join(', ');
    lines.push(`Schedules: ${enabled.length} of ${schedules.length} enabled: ${names}`);
  }

  const database = config.database;
  lines.push(
    database.kind === 'postgres'
      ? `Database: PostgreSQL at ${database.maskedUrl} (several replicas may share it)`
      : `Database: SQLite at ${database.path} — set DATABASE_URL=postgres://… instead to run several replicas on PostgreSQL`,
  );
  return lines;
}
