/**
 * The service's own part of the validated configuration: everything but the surfaces' sections. Here,
 * below the surfaces, because a surface's module reads it (`surface-kit/surface-module.ts`) while the
 * whole `AppConfig` is derived from the registered surfaces (`config/types.ts`).
 */
import type { Route } from '../core/intake/routing.js';
import type { Limits } from '../core/limits/limits.js';
import type { AgentConfig } from '../core/ports/agent-runs.js';
import type { ConfigProblem } from './problem.js';
import type { Attribution, LogLevel } from './value-sets.js';

/**
 * A route's `config`: the run API's `AmbientAgentConfig` fields. Known fields are type-checked;
 * any other field is passed through to the API untouched.
 */
export type AgentConfigInput = AgentConfig;

/** Where a PostgreSQL database is, as shown to people (no credentials). */
export interface PostgresTarget {
  host: string;
  port: number;
  database: string;
}

/** A schedule; `notify` holds each surface's place, under that surface's own field (`Surface.scheduleNotify`). */
export interface ScheduleConfig<Notify extends Readonly<Record<string, string | undefined>> = Readonly<Record<string, string | undefined>>> extends Route {
  name: string;
  /** 5 fields, or 6 with leading seconds. Syntax and ranges are already checked. */
  cron: string;
  /** A valid IANA zone; `UTC` by default. */
  timezone: string;
  prompt: string;
  overlap: 'skip' | 'allow';
  catchUp: 'none' | 'latest';
  enabled: boolean;
  /** 0 = never pause. */
  pauseAfterFailures: number;
  notify: Notify;
}

/**
 * Which store the service uses: SQLite at a file (the default), or PostgreSQL when `DATABASE_URL`
 * is set (several replicas may share it).
 */
export type DatabaseConfig =
  /** `path`: absolute file path, or `:memory:`. */
  | { kind: 'sqlite'; path: string }
  /** `url` holds the password: show `maskedUrl` or `target` instead. */
  | { kind: 'postgres'; url: string; maskedUrl: string; target: PostgresTarget; password: string | undefined };

/** The validated configuration but the surfaces' sections: what every module may read besides its own section. */
export interface ServiceConfig {
  /** Absolute path of the YAML file used, if any. */
  configFile: string | undefined;
  /** Where each secret variable that is set came from (`config check` says so; never its value). */
  secretSources?: Readonly<Record<string, 'env' | '.env'>>;
  /** What is valid but cannot do what it seems meant to (`config-warnings.ts`): logged at start, printed by `config check`. */
  warnings?: readonly ConfigProblem[];
  agentApi: {
    /** Without trailing slash, ends in `/api/v1`. */
    baseUrl: string | undefined;
    apiKey: string | undefined;
    /** True when `AGENT_API_BASE_URL` is unset: the built-in emulator runs in-process. */
    emulated: boolean;
  };
  /** Applied to every run; `config` is `{}` unless the defaults name a factory. */
  defaults: Route;
  tracker: { intervalMs: number; pageSize: number };
  intake: { retryWindowMs: number; dedupeRetentionMs: number };
  /** The audit trail: `retentionMs` (`audit.retention`) is how long an entry is kept. */
  audit: { retentionMs: number };
  schedules: ScheduleConfig[];
  /**
   * The web console's people; `admins` (user IDs of the surface approvers are asked on) see everything
   * and may cancel any run. `adminToken` (`CONSOLE_ADMIN_TOKEN`) turns the console on with an admin
   * sign-in; a surface may offer its own sign-in beside it (`AppConfig`'s `ConsoleSignIns`).
   */
  console: { admins: string[]; adminToken?: string };
  /**
   * Runs under each person's key: `attribution` says whose key a run is created with; `secret`
   * (`AGENT_BRIDGE_SECRET`) seals the stored personal keys, required unless attribution is `service`.
   */
  people: { attribution: Attribution; secret?: string };
  /** `limits.per_person`: the runs each person asks for, on any surface; 0 = no limit. A route's own are on the route. */
  limits: { perPerson: Limits };
  database: DatabaseConfig;
  /**
   * `publicUrl` (`PUBLIC_URL`, no trailing slash): where people reach the service (links, `Secure` cookies).
   * `metricsToken` (`METRICS_TOKEN`): when set, `GET /metrics` needs `Authorization: Bearer <token>`.
   */
  http: { port: number; host: string; publicUrl?: string; metricsToken?: string };
  logLevel: LogLevel;
  /** Traces sent over OTLP/HTTP (`OTEL_*`, docs/observability.md); absent: tracing is off and nothing of it is loaded. */
  tracing?: TracingConfig;
}

/** `OTEL_TRACES_SAMPLER`'s values. */
export type TracingSampler = 'always_on' | 'always_off' | 'traceidratio' | 'parentbased_always_on' | 'parentbased_always_off' | 'parentbased_traceidratio';

/** Where and how spans are exported, from OpenTelemetry's standard variables. */
export interface TracingConfig {
  /** The OTLP/HTTP traces URL (`…/v1/traces`). */
  url: string;
  /** Sent with every export (`OTEL_EXPORTER_OTLP_HEADERS`, `…_TRACES_HEADERS`): secrets, scrubbed from logs. */
  headers: Readonly<Record<string, string>>;
  serviceName: string;
  resourceAttributes: Readonly<Record<string, string>>;
  sampler: TracingSampler;
  /** `OTEL_TRACES_SAMPLER_ARG`: the ratio of the `traceidratio` samplers (default 1). */
  samplerRatio?: number;
  /** `OTEL_BSP_SCHEDULE_DELAY`: how long spans wait to be exported in a batch (default 5000 ms). */
  scheduleDelayMs?: number;
}
