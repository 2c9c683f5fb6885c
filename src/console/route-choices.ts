/**
 * The routes a person may start a run on from the console's New run form: the defaults, and every
 * route of the config that carries a name (`config.name`) — the name its runs' usage and limits go
 * by. A name several routes share is offered once, as the first of them in the order below (Slack
 * channels, Linear labels, Jira labels, GitHub repositories and labels, schedules).
 */
import type { Route } from '../core/intake/routing.js';
import type { AppConfig } from '../config/types.js';

/** A route offered on the form: its name, where the config sets it (`slack.channels.C0123ABCD`), and the route itself. */
export interface RouteChoice {
  name: string;
  where: string;
  route: Route;
}

/** The parts of the config the choices come from. */
export type RouteConfig = Pick<AppConfig, 'slack' | 'linear' | 'jira' | 'github' | 'schedules'>;

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
    ...named('slack.channels', config.slack.channels),
    ...named('linear.labels', config.linear.labels),
    ...named('jira.labels', config.jira.labels),
    ...named('github.repos', config.github.repos),
    ...named('github.labels', config.github.labels),
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
