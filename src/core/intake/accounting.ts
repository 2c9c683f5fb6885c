/**
 * Who a run counts against: the person who asked and the route it runs on. Usage is
 * summed by both, and the limits (`limits.per_person`, a route's `limits`) count by both.
 */
import type { Origin, Requester } from '../ports/triggers.js';
import { defaultRunName, type ResolvedRoute } from './routing.js';
import type { UsableKey } from './step-context.js';

/** The run's person and route name. */
export interface Accounting {
  /** The person id of who asked; undefined for a schedule or the command line. */
  askedBy?: string;
  routeName: string;
}

/**
 * Who asked, as a person id: the person behind the requester when the key choice looked them up (a
 * chat user id), else the surface's own id of the requester (a user not linked to a person).
 */
export function askedByOf(choice: Pick<UsableKey, 'personId'>, requester: Requester | undefined): string | undefined {
  return choice.personId ?? (requester?.id || undefined);
}

/** The route's name: the run's config `name` (the route's own, else the source or schedule name); a factory's: the source or schedule name. */
export function routeNameOf(route: ResolvedRoute, origin: Origin): string {
  return route.kind === 'run' ? route.config.name : defaultRunName(origin);
}

/** Both, for a start under `choice`. */
export function accountingOf(choice: Pick<UsableKey, 'personId'>, route: ResolvedRoute, payload: { requester?: Requester; origin: Origin }): Accounting {
  const askedBy = askedByOf(choice, payload.requester);
  return { ...(askedBy !== undefined && { askedBy }), routeName: routeNameOf(route, payload.origin) };
}
