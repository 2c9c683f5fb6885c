/**
 * Places the config file names on a surface that is off: a Slack channel while `SLACK_BOT_TOKEN` is
 * unset, a Linear issue while Linear is off. The file is valid on its own, but every message owed to
 * such a place would fail at delivery (`no notifier for platform "slack"`), run after run; so the
 * start refuses it, naming the key and what to turn on. Each surface says when it is on and what is
 * said of its places (its config slice).
 */
import type { FileSurfaceRoute } from '../config-kit/route-schema.js';
import type { Said } from '../surface-kit/config-slice.js';
import { formatPath, type ConfigProblem } from './problems.js';
import type { FileConfig } from './file-schema.js';
import { PERSON_IDS } from '../surface-list.js';
import { SURFACE_SLICES, type SurfaceSlice } from './surface-slices.js';

type Env = Readonly<Record<string, string | undefined>>;

/** Every surface route, with its key path. */
function surfaceRoutes(file: FileConfig): Array<{ path: PropertyKey[]; route: FileSurfaceRoute }> {
  const sections = SURFACE_SLICES.flatMap(({ name, config }) => config.routes(file[name]));
  return sections.flatMap(([path, routes]) => Object.entries(routes).map(([key, route]) => ({ path: [...path, key], route })));
}

/** Schedules reporting to a place on a surface that is off: each surface's key of `notify`. */
function schedulePlacesOff(file: FileConfig, env: Env, at: (path: PropertyKey[]) => string): ConfigProblem[] {
  return file.schedules.flatMap((schedule, index) => {
    const path = ['schedules', index, 'notify'];
    const notify = schedule.notify as Readonly<Record<string, unknown>>;
    return SURFACE_SLICES.flatMap(({ config }) => {
      const key = config.scheduleNotify;
      return key && !config.isOn(env) && notify[key.key] !== undefined ? [{ where: at([...path, key.key]), ...key.whenOff(schedule.name) }] : [];
    });
  });
}

/**
 * The problems of places on surfaces that are off, each at its key path in `label` (the file as the
 * other problems name it): a schedule's `notify` place, a route's companion place (`slack_channel`),
 * and a route's `approval` (each approver is asked on their own chat surface). A route of a surface that is itself
 * off is checked too: turning that surface on later must not start a bridge that cannot work.
 */
export function placesOnSurfacesOff(file: FileConfig, env: Env, label: string): ConfigProblem[] {
  const at = (path: PropertyKey[]) => `${label}: ${formatPath(path)}`;
  const problems = schedulePlacesOff(file, env, at);
  const companionsOff = SURFACE_SLICES.flatMap(({ config }) => (config.companion && !config.isOn(env) ? [config.companion] : []));
  for (const { path, route } of surfaceRoutes(file)) {
    for (const companion of companionsOff) {
      if (route[companion.key] !== undefined) problems.push({ where: at([...path, companion.key]), ...companion.whenOff });
    }
    for (const off of approversOff(route, env)) problems.push({ where: at([...path, 'approval']), ...off });
  }
  return problems;
}

/** What is said of each chat surface that is off while one of the route's approvers is its user (once per surface). */
function approversOff(route: FileSurfaceRoute, env: Env): Said[] {
  const surfaces = new Set((route.approval?.approvers ?? []).flatMap((personId) => PERSON_IDS.parse(personId)?.surface ?? []));
  return SURFACE_SLICES.filter((slice) => surfaces.has(slice.name) && !slice.config.isOn(env)).map(
    (slice) => slice.config.approvers?.whenOff ?? approversOffByDefault(slice),
  );
}

/** For a chat surface that says nothing of its own. */
function approversOffByDefault(slice: SurfaceSlice): Said {
  return {
    message: `needs ${slice.title}: approvers who are its users are asked there, but it is off`,
    hint: `turn ${slice.title} on (its variables are in docs/configuration.md), or remove approval`,
  };
}
