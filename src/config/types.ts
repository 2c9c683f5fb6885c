/**
 * The validated configuration every other part of the service reads. Built once at start by
 * `loadConfig` (environment + optional `.env` + optional `agent-bridge.yml`) and never changed after.
 */
import type { ScheduleConfig as ServiceSchedule, ServiceConfig } from '../config-kit/service-config.js';
import type { RegisteredModules } from '../surface-list.js';

export { LOG_LEVELS, type Attribution, type LogLevel } from '../config-kit/value-sets.js';
export type { AgentConfigInput, DatabaseConfig, PostgresTarget, ServiceConfig } from '../config-kit/service-config.js';

/** Where a run goes; the core owns the type (`core/intake/routing.ts`). */
export type { Route } from '../core/intake/routing.js';

type Registered = RegisteredModules[number];

/** Each registered surface's part of `AppConfig`, by its name: what its config slice resolves (`config.<name>`). */
export type SurfaceSections = { [M in Registered as M['name']]: ReturnType<M['config']['resolve']> };

type SignInKey<M extends Registered> = M['config'] extends { signIn: { key: infer K extends string } } ? K : never;
type SignInOf<M extends Registered> = M['config'] extends { signIn: { resolve(env: never): infer V } } ? NonNullable<V> : never;
/** The console sign-ins surfaces offer, each under its own key (`slackSignIn`), present when its variables are set. */
export type ConsoleSignIns = { [M in Registered as SignInKey<M>]?: SignInOf<M> };

type NotifyField<M extends Registered> = M['config'] extends { scheduleNotify: { field: infer F extends string } } ? F : never;
/** A type, not an interface: the core reads it as a record, each surface its own key (`Surface.scheduleNotify`). */
export type ScheduleNotify = { [M in Registered as NotifyField<M>]?: string };

export type ScheduleConfig = ServiceSchedule<ScheduleNotify>;

/** The service's settings and each registered surface's section; its schedules and console with what the surfaces add to them. */
export interface AppConfig extends ServiceConfig, SurfaceSections {
  schedules: ScheduleConfig[];
  console: ServiceConfig['console'] & ConsoleSignIns;
}
