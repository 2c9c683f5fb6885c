/**
 * Routes as the core reads them (`Route`), from the file's: keys unset in the file are left out, a
 * route's approval names where its buttons go and where each approver is asked.
 */
import type { RouteApproval, Route } from '../core/intake/routing.js';
import type { Limits } from '../core/limits/limits.js';
import type { FileApproval, FileRoute, FileSurfaceRoute, RouteParts } from './route-schema.js';

/** Drops keys whose value is `undefined` (left by empty YAML values). */
export function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** `limits` as the core reads them. */
export function toLimits(limits: { concurrent: number; per_day: number; credits_per_month: number }): Limits {
  return { concurrent: limits.concurrent, perDay: limits.per_day, creditsPerMonth: limits.credits_per_month };
}

/**
 * A surface route's `approval`: its buttons go to the request's own place, or to `place` (a companion
 * place, on a route of another surface); each approver is asked one to one on their own chat surface
 * (`<surface>:<user id>`).
 */
function toApproval(approval: FileApproval, place: string | undefined, people: RouteParts['people']): RouteApproval {
  return {
    approvers: [...approval.approvers],
    expiresMs: approval.expires,
    ...(place !== undefined && { place }),
    approverPlaces: approval.approvers.flatMap((personId) => {
      const parsed = people.parse(personId);
      return parsed ? [`${parsed.surface}:${parsed.userId}`] : [];
    }),
  };
}

/** A route of the file as the core reads it; `approval` needs `parts` (whose users approve) and is read only when given. */
export function toRoute(route: FileRoute & { approval?: FileApproval }, parts?: RouteParts, approvalPlace?: string): Route {
  const out: Route = compact({
    title: route.title,
    agent_identity_uid: route.agent_identity_uid,
    factory_uid: route.factory_uid,
    announce: route.announce,
  });
  if (route.config !== undefined) out.config = compact(route.config);
  if (route.overrides !== undefined) out.overrides = compact(route.overrides);
  if (route.limits !== undefined) out.limits = toLimits(route.limits);
  if (route.approval !== undefined && parts) out.approval = toApproval(route.approval, approvalPlace, parts.people);
  return out;
}

/** The companion place a route names (`<surface>:<value>`), if any: where its approval buttons go. */
function companionPlace(route: FileSurfaceRoute, parts: RouteParts): string | undefined {
  for (const { key, surface } of parts.companions) {
    const value = route[key];
    if (typeof value === 'string') return `${surface}:${value}`;
  }
  return undefined;
}

/** A surface's routes as the core reads them, keyed by `key` of each name (e.g. lower-cased). */
export function toRoutes(
  routes: Readonly<Record<string, FileSurfaceRoute>>,
  parts: RouteParts,
  key: (name: string) => string = (name) => name,
): Record<string, Route> {
  return Object.fromEntries(Object.entries(routes).map(([name, route]) => [key(name), toRoute(route, parts, companionPlace(route, parts))]));
}

/**
 * Each route's companion places, by the route's lower-cased key: one `<surface>:<value>` for every chat
 * surface whose companion key the route sets (`slack_channel`…), in the order of the list of surfaces.
 * Routes that name none are left out.
 */
export function companionPlaces(routes: Readonly<Record<string, FileSurfaceRoute>>, parts: RouteParts): Record<string, string[]> {
  return Object.fromEntries(
    Object.entries(routes).flatMap(([name, route]) => {
      const places = parts.companions.flatMap(({ key, surface }) => {
        const value = route[key];
        return typeof value === 'string' && value !== '' ? [`${surface}:${value}`] : [];
      });
      return places.length > 0 ? [[name.trim().toLowerCase(), places]] : [];
    }),
  );
}

/**
 * The companion places on chat surfaces that are on, by route key: a place on a chat that is off could
 * only fail (the config refuses one; this keeps a stale one from being owed anything).
 */
export function companionsOn(companions: Readonly<Record<string, readonly string[]>>, isOn: (surface: string) => boolean): Record<string, string[]> {
  return Object.fromEntries(
    Object.entries(companions).flatMap(([route, places]) => {
      const kept = places.filter((place) => isOn(place.slice(0, place.indexOf(':'))));
      return kept.length > 0 ? [[route, kept]] : [];
    }),
  );
}
