/**
 * What the configuration needs of a surface: its slice of the environment and of `agent-bridge.yml`,
 * how they resolve into its section of `AppConfig`, and what `config check`, the start's warnings and
 * the log scrubber say of it. The config loader (`src/config/`) asks each registered surface for these
 * and names none; a surface's slice lives in its own folder and is built from `src/config-kit/`.
 */
import type { z } from 'zod';
import type { SecretSource } from '../config-kit/describe-parts.js';
import type { ConfigProblem } from '../config-kit/problem.js';
import type { CompanionPlace, FileSurfaceRoute, RouteParts } from '../config-kit/route-schema.js';

/** A problem as said of one key or variable: what is wrong, and what to do. */
export interface Said {
  message: string;
  hint: string;
}

/** One of a surface's environment variables. */
export interface EnvVariable {
  readonly name: string;
  /** Its value is a secret: `config check` masks it and the logger scrubs it from every line. */
  readonly secret: boolean;
  /** Where the operator finds its value, or what leaving it unset means. */
  readonly hint: string;
}

/** Whether a registered surface is on, by its name: what one surface's warnings may ask of another. */
export type SurfaceIsOn = (surface: string) => boolean;

/** The places of a surface's routes in the file, each with its key path (`['github', 'repos']`). */
export type RoutesAt = ReadonlyArray<readonly [path: readonly string[], routes: Readonly<Record<string, FileSurfaceRoute>>]>;

/** A chat surface's key of a schedule's `notify`: where its runs report. */
export interface ScheduleNotifyKey {
  /** The key under `notify` (`slack_channel`). */
  readonly key: string;
  /** The schedule's `notify` field the service reads (`slackChannel`). */
  readonly field: string;
  readonly schema: z.ZodType<string>;
  /** Said when the surface is off: every message of the schedule's runs would fail. */
  whenOff(schedule: string): Said;
}

/**
 * The settings of a console sign-in a surface offers (Sign in with Slack): a field of `AppConfig.console`,
 * from the surface's variables. Its module's `signIn` (`sign-in-provider.ts`) turns them into the provider.
 */
export interface ConsoleSignIn<Env, Value> {
  /** Its field in `AppConfig.console` (`slackSignIn`). */
  readonly key: string;
  /** Its settings, or `undefined` when its variables are not set. */
  resolve(env: Env): Value | undefined;
  describe(value: Value, sourceOf: (variable: string) => SecretSource | undefined): Record<string, unknown>;
  secrets(value: Value): ReadonlyArray<string | undefined>;
}

/**
 * One surface's configuration. `Shape` checks its variables one by one, `Env` is what they resolve to,
 * `File` its section of the file once parsed, `Section` its part of `AppConfig` (`config.<name>`).
 */
export interface ConfigSlice<
  Shape extends z.ZodRawShape = z.ZodRawShape,
  Env = unknown,
  File = unknown,
  Section extends { enabled: boolean } = { enabled: boolean },
> {
  /** Its variables, in the order the docs and `config check` name them. */
  readonly variables: readonly EnvVariable[];
  /** Each variable checked alone; an unset or empty one arrives as `undefined`. */
  readonly envShape: Shape;
  /** What is wrong with the variables as a set (some set, a companion missing), in the merged environment. */
  setProblems(env: Readonly<Record<string, string>>): ConfigProblem[];
  /** Its settings from the checked variables, or the one problem reading them found (a key file that cannot be read). */
  readEnv(checked: z.output<z.ZodObject<Shape>>, cwd: string): { env: Env } | { problem: ConfigProblem };
  /** Whether it is on, read from the merged environment before any check (places on a surface that is off are refused). */
  isOn(env: Readonly<Record<string, string | undefined>>): boolean;
  /** Its section of `agent-bridge.yml` with the documented defaults; its routes are built from `parts`. */
  fileSection(parts: RouteParts): z.ZodType<File>;
  /** Its part of `AppConfig`. */
  resolve(env: Env, file: File, parts: RouteParts): Section;
  /** Its routes in the file, for the checks every surface's routes get. */
  routes(file: File): RoutesAt;
  /** Its section as `config check` shows it: every secret masked (`maskSecret`). */
  describe(section: Section, sourceOf: (variable: string) => SecretSource | undefined): Record<string, unknown>;
  /** Its line of the summary: what is on, or how to turn it on. */
  summary(section: Section): string;
  /** What is valid but cannot do what it seems meant to; `label` names the file as its problems do. */
  warnings(section: Section, label: string, isOn: SurfaceIsOn): ConfigProblem[];
  /** The secret values it holds, for the logger to scrub. */
  secrets(section: Section): ReadonlyArray<string | undefined>;
  /** A chat surface's place another surface's route may name (`slack_channel`), and what is said of it while this surface is off. */
  readonly companion?: Omit<CompanionPlace, 'surface'> & { whenOff: Said };
  /** A chat surface whose users may approve (`approval.approvers`): what is said of a route naming one of them while it is off. */
  readonly approvers?: { whenOff: Said };
  readonly scheduleNotify?: ScheduleNotifyKey;
  /** A tracker whose issues a chat message may name (its module's start answers an `issueLinker`): what is said of a chat's `link_<name>_issues` while this tracker is off. */
  readonly issueLinks?: { whenOff: Said };
  readonly signIn?: ConsoleSignIn<Env, unknown>;
}
