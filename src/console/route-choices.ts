/**
 * The routes a person may start a run on from the console's New run form: the defaults, and every
 * route of the config that carries a name (`config.name`) — the name its runs' usage and limits go
 * by. A name several routes share is offered once, as the first of them: the surfaces' route tables in
 * the order the surfaces are registered, then the schedules.
 */
import type { Route } from '../core/intake/routing.js';
import type { AppConfig } from '../config/types.js';
import { SURFACE_MODULES } from '../surface-list.js';

/** A route offered on the form: its name, where the config sets it (`<surface>.<table>.<key>`), and the route itself. */
export interface RouteChoice {
  name: string;
  where: string;
  route: Route;
}

/** The config the choices come from. */
export type RouteConfig = AppConfig;

function named(prefix: string, routes: Readonly<Record<string, Route>>): RouteChoice[] {
  return Object.entries(routes).flatMap(([key, route]) => {
    const name = route.config?.name;
    return typeof name === 'string' && name !== '' ? [{ name, where: `${prefix}.${key}`, route }] : [];
  });
}

/** Every named route of the config, one per name, in the order of the file comment. */
export function routeChoices(config: RouteConfig): RouteChoice[] {
  const schedules = Object.fromEntries(config.schedules.map((schedule) => [schedule.name, scheduleRoute(schedule)]));
  const all = [
    ...SURFACE_MODULES.flatMap((module) => module.routeTables(config).flatMap(({ where, routes }) => named(where, routes))),
    ...named('schedules', schedules),
  ];
  const seen = new Set<string>();
  return all.filter((choice) => !seen.has(choice.name) && seen.add(choice.name));
}

/** A schedule's own route, without what only a schedule has (cron, prompt, notify…). */
function scheduleRoute(schedule: AppConfig['schedules'][number]): Route {
  return {
    ...(schedule.config !== undefined && { config: schedule.config }),
    ...(schedule.title !== undefined && { title: schedule.title }),
    ...(schedule.agent_identity_uid !== undefined && { agent_identity_uid: schedule.agent_identity_uid }),
    ...(schedule.factory_uid !== undefined && { factory_uid: schedule.factory_uid }),
    ...(schedule.announce !== undefined && { announce: schedule.announce }),
    ...(schedule.limits !== undefined && { limits: schedule.limits }),
  };
}
