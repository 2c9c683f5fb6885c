/**
 * A route in `agent-bridge.yml`: where a run goes (`config`, `agent_identity_uid` or `factory_uid`),
 * what a request may choose (`overrides`), what is said (`announce`) and its `limits`. Every surface's
 * routes are built from `routeParts`, which adds `approval` and, on surfaces whose places are not a
 * chat's, the key naming a chat place the run also gets (a companion place, `slack_channel`).
 */
import { z } from 'zod';
import type { IssueLinkOffer } from './tracker-keys.js';
import { always, DAY, duration, emptyIfNull, optional, section, strict, text, withDefault } from './file-schema-parts.js';
import { personIdSchema, type PersonIdReader } from './person-id-schema.js';

/** AmbientAgentConfig: known fields checked, any other field passed through. */
export const agentConfigSchema = z.looseObject({
  name: optional(text),
  model_id: optional(text),
  base_prompt: optional(z.string()),
  environment_id: optional(text),
  skill_spec: z.unknown().optional(),
  mcp_servers: optional(z.record(z.string(), z.unknown())),
});

/** Which values a request's `[env=… model=… skill=…]` option may take: a list, or "*" for any. */
const overrideValues = z.union([z.literal('*'), z.array(text).min(1)], {
  error: 'must be "*" (any value) or a list of allowed values, e.g. [env_web, env_api]',
});

/** Limits: runs at once, runs per UTC day, credits per UTC month; 0 = no limit. */
export const limitsShape = {
  concurrent: withDefault(z.int().min(0).max(1_000_000), 0),
  per_day: withDefault(z.int().min(0).max(1_000_000), 0),
  credits_per_month: withDefault(z.number().min(0).max(1e12), 0),
};

/** The keys of every route: the defaults', a schedule's and each surface's. */
export const routeShape = {
  config: optional(agentConfigSchema),
  title: optional(text),
  agent_identity_uid: optional(text),
  factory_uid: optional(text),
  // Which options a request may set; unset: none.
  overrides: optional(strict({ environment_id: optional(overrideValues), model_id: optional(overrideValues), skill_spec: optional(overrideValues) })),
  announce: optional(z.enum(['end', 'blocked_and_end', 'all'])),
  // The runs of this route (by its name) at once, per UTC day, and their credits per UTC month.
  limits: optional(section(limitsShape)),
};

/** factory_uid excludes config and agent_identity_uid (a factory dispatch carries no config). */
export function checkRouteTargets(value: unknown, ctx: z.RefinementCtx): void {
  if (value === null || typeof value !== 'object') return;
  const route = value as Record<string, unknown>;
  if (route.factory_uid === undefined || route.factory_uid === null) return;
  const others = ['config', 'agent_identity_uid'].filter((key) => route[key] !== undefined && route[key] !== null);
  if (others.length === 0) return;
  ctx.addIssue({
    code: 'custom',
    path: ['factory_uid'],
    message: `cannot be combined with ${others.join(' or ')} — a factory dispatch carries no config`,
    params: { hint: `keep factory_uid alone, or remove it and keep ${others.join(' and ')}` },
  });
}

/** The defaults' route. */
export const routeSchema = z.preprocess(emptyIfNull, strict(routeShape).superRefine(checkRouteTargets, always));

/** A chat surface's place that another surface's route may name, so its runs get a thread there too. */
export interface CompanionPlace {
  /** The route key, as the chat surface names it. */
  key: string;
  /** The chat surface the place is on; its name prefixes the place (`<surface>:<value>`). */
  surface: string;
  /** Checks a value of the key. */
  schema: z.ZodType<string>;
  /** Said when such a route asks for approval without it: the buttons are posted there. */
  neededForApproval: { message: string; hint: string };
}

/** A surface route as the file gives it: a route, its approval, and any companion places. */
export type FileSurfaceRoute = z.output<typeof routeSchema> & { approval?: FileApproval } & { readonly [key: string]: unknown };
export type FileRoute = z.output<typeof routeSchema>;
export interface FileApproval {
  approvers: string[];
  expires: number;
}

/**
 * The route pieces every surface builds its routes from, given the chat surfaces' companion places and
 * how people are named (approvers are persons of any chat surface, each asked on their own). Built once
 * by the config from the registered surfaces and handed to each surface's config slice, so no surface
 * names another. `issueLinks`: the trackers whose issues a chat message may name.
 */
export function routeParts(companions: readonly CompanionPlace[], people: PersonIdReader, issueLinks: readonly IssueLinkOffer[] = []) {
  /** `approval`: every request on the route waits until an approver approves it, or `expires` passes. */
  const approval = strict({
    approvers: z.array(personIdSchema(people)).min(1, { error: `must list at least one person who may approve: ${people.expected()}` }),
    expires: withDefault(duration(60_000, 30 * DAY), DAY),
  });
  const surfaceRouteShape = { ...routeShape, approval: optional(approval) };
  const companionShape = Object.fromEntries(companions.map((companion) => [companion.key, optional(companion.schema)]));

  /** A route needing approval on a surface whose places are not a chat's must name the chat place where its buttons go. */
  function requireCompanion(value: unknown, ctx: z.RefinementCtx): void {
    if (value === null || typeof value !== 'object' || companions.length === 0) return;
    const route = value as Record<string, unknown>;
    if (route.approval === undefined || route.approval === null) return;
    if (companions.some(({ key }) => route[key] !== undefined && route[key] !== null)) return;
    const [first] = companions;
    ctx.addIssue({ code: 'custom', path: ['approval'], message: first!.neededForApproval.message, params: { hint: first!.neededForApproval.hint } });
  }

  /** The route of a surface whose places are not a chat's: it may name companion places, plus the keys of `extra`. */
  function companionRoute<T extends z.ZodRawShape>(extra: T) {
    return z.preprocess(
      emptyIfNull,
      strict({ ...surfaceRouteShape, ...companionShape, ...extra })
        .superRefine(checkRouteTargets, always)
        .superRefine(requireCompanion, always),
    );
  }

  return { surfaceRouteShape, companionRoute, checkRouteTargets, companions, people, issueLinks };
}

/** The route pieces a surface's config slice is handed. */
export type RouteParts = ReturnType<typeof routeParts>;
