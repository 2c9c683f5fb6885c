/**
 * Places the config file names on a surface that is off: a Slack channel while `SLACK_BOT_TOKEN` is
 * unset, a Linear issue while Linear is off. The file is valid on its own, but every message owed to
 * such a place would fail at delivery (`no notifier for platform "slack"`), run after run; so the
 * start refuses it, naming the key and what to turn on. Each surface says when it is on and what is
 * said of its places (its config slice).
 */
import type { FileSurfaceRoute } from '../config-kit/route-schema.js';
import { formatPath, type ConfigProblem } from './problems.js';
import type { FileConfig } from './file-schema.js';
import { APPROVERS_SLICE, SURFACE_SLICES } from './surface-slices.js';

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
 * and a route's `approval` (approvers are asked on their surface). A route of a surface that is itself
 * off is checked too: turning that surface on later must not start a bridge that cannot work.
 */
export function placesOnSurfacesOff(file: FileConfig, env: Env, label: string): ConfigProblem[] {
  const at = (path: PropertyKey[]) => `${label}: ${formatPath(path)}`;
  const problems = schedulePlacesOff(file, env, at);
  const companionsOff = SURFACE_SLICES.flatMap(({ config }) => (config.companion && !config.isOn(env) ? [config.companion] : []));
  const approversOff = APPROVERS_SLICE?.config.approvers && !APPROVERS_SLICE.config.isOn(env) ? APPROVERS_SLICE.config.approvers : undefined;
  for (const { path, route } of surfaceRoutes(file)) {
    for (const companion of companionsOff) {
      if (route[companion.key] !== undefined) problems.push({ where: at([...path, companion.key]), ...companion.whenOff });
    }
    if (approversOff && route.approval !== undefined) problems.push({ where: at([...path, 'approval']), ...approversOff.whenOff });
  }
  return problems;
}
