import type { AgentConfig } from '../ports/agent-runs.js';
import type { Origin, SurfaceOrigin } from '../ports/triggers.js';
import type { Overrides, RequestOptions } from '../request-options.js';
import type { Limits } from '../limits/limits.js';

export type { Origin } from '../ports/triggers.js';

/**
 * Where a run goes (docs/configuration.md): an agent config, an agent identity, or a factory. `factory_uid`
 * excludes the other two: a factory dispatch carries no config.
 */
export interface Route {
  config?: AgentConfig;
  title?: string;
  agent_identity_uid?: string;
  factory_uid?: string;
  /** Which `[env=… model=… skill=…]` options a request may set, and to which values. */
  overrides?: Overrides;
  /** Which states get a new message besides the status edit. Unset: `blocked_and_end`. */
  announce?: Announce;
  /** How many runs of this route may run at once, start per day, and spend per month. Unset: none. */
  limits?: Limits;
  /** Every request on the route waits for one of the approvers; surfaces' routes only. */
  approval?: RouteApproval;
}

/** A route's `approval`, as the core needs it: who may approve, for how long, and where they are asked. */
export interface RouteApproval {
  /** Person ids who may approve or reject. */
  approvers: string[];
  expiresMs: number;
  /** Where the Approve and Reject buttons go when not the request's own place (an issue's request: a chat channel). */
  place?: string;
  /** Where each approver is told, one place each (a direct message). */
  approverPlaces: string[];
}

/** How much a run says: only its end, BLOCKED and its end (the default), or every state. */
export type Announce = 'end' | 'blocked_and_end' | 'all';

/** The routes of the config file, as the core needs them. */
export interface RoutingTable {
  defaults: Route;
  /** Schedule name → its route. A surface's origins are routed by the surface itself (`Surface.route`). */
  schedules: Record<string, Route>;
}

/** A route ready to use: either a config run (always named) or a factory dispatch. */
export type ResolvedRoute = (
  | {
      kind: 'run';
      config: AgentConfig & { name: string };
      title?: string;
      agent_identity_uid?: string;
      /** The request's own options, already applied to `config`; kept to show them in the status message. */
      options?: RequestOptions;
    }
  | { kind: 'factory'; factory_uid: string; title?: string }
) & { overrides?: Overrides; announce?: Announce; limits?: Limits; approval?: RouteApproval };

/** What routes a surface's origins: the registered surfaces (`Surfaces`), each resolving its own. */
export interface SurfaceRoutes {
  route(origin: SurfaceOrigin): Route | undefined;
}

/** The origin's own route, before the defaults are applied: a schedule's, or its surface's. */
export function specificRoute(table: RoutingTable, origin: Origin, surfaces: SurfaceRoutes): Route | undefined {
  if (origin.source === 'cli') return undefined;
  if (origin.source === 'schedule') return origin.schedule === undefined ? undefined : table.schedules[origin.schedule];
  return surfaces.route(origin);
}

/** The config `name` a run carries when no route names it: the source, or the schedule's name. */
export function defaultRunName(origin: Origin): string {
  return origin.source === 'schedule' ? (origin.schedule ?? origin.source) : origin.source;
}

/**
 * The route for an origin merged over `defaults` (docs/configuration.md). The more specific route wins field
 * by field; `mcp_servers` merge by server name. A specific route that names a factory replaces
 * everything; one that names a config or an agent replaces a factory in the defaults. Every config
 * run carries a `name`: the route's own, else the defaults', else the source or schedule name.
 */
export function resolveRoute(table: RoutingTable, origin: Origin, surfaces: SurfaceRoutes): ResolvedRoute {
  const defaults = table.defaults;
  const specific = specificRoute(table, origin, surfaces) ?? {};
  const title = specific.title ?? defaults.title;
  const overrides = specific.overrides ?? defaults.overrides;
  const announce = specific.announce ?? defaults.announce;
  const limits = specific.limits ?? defaults.limits;
  const extras = {
    ...(overrides !== undefined && { overrides }),
    ...(announce !== undefined && { announce }),
    ...(limits !== undefined && { limits }),
    // Only a surface's own route asks for approval: the defaults never do.
    ...(specific.approval !== undefined && { approval: specific.approval }),
  };
  if (specific.factory_uid) return { kind: 'factory', factory_uid: specific.factory_uid, ...(title !== undefined && { title }), ...extras };
  const specificRunsAgent = specific.config !== undefined || specific.agent_identity_uid !== undefined;
  if (defaults.factory_uid && !specificRunsAgent) {
    return { kind: 'factory', factory_uid: defaults.factory_uid, ...(title !== undefined && { title }), ...extras };
  }
  const mcpServers =
    defaults.config?.mcp_servers || specific.config?.mcp_servers ? { ...defaults.config?.mcp_servers, ...specific.config?.mcp_servers } : undefined;
  const config: AgentConfig = { ...defaults.config, ...specific.config, ...(mcpServers && { mcp_servers: mcpServers }) };
  const name = typeof config.name === 'string' && config.name !== '' ? config.name : defaultRunName(origin);
  const agent = specific.agent_identity_uid ?? defaults.agent_identity_uid;
  return {
    kind: 'run',
    config: { ...config, name },
    ...(title !== undefined && { title }),
    ...(agent !== undefined && { agent_identity_uid: agent }),
    ...extras,
  };
}

/** The route with a request's options applied to its config (they were checked against `overrides`). */
export function withRequestOptions(route: ResolvedRoute, options: RequestOptions): ResolvedRoute {
  if (route.kind !== 'run' || Object.keys(options).length === 0) return route;
  return { ...route, config: { ...route.config, ...options }, options };
}
