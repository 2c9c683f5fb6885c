/**
 * The one place surfaces are registered (issue 28): each brings its `Surface` (what its places can do,
 * its routes, its schedule `notify` key), and the core asks them through `Surfaces`, never by name.
 * A new surface (GitHub, Jira) adds one line here; its edge, notifier and context reader are wired
 * beside Slack's and Linear's in `compose/integrations.ts` and `main.ts` (docs/architecture.md,
 * "Adding a surface").
 */
import type { AppConfig } from '../config/types.js';
import { consoleSurface } from '../console/surface.js';
import { routeChoices } from '../console/route-choices.js';
import { Surfaces } from '../core/surfaces.js';
import { githubSurface } from '../github/surface.js';
import { jiraSurface } from '../jira/surface.js';
import { linearSurface } from '../linear/surface.js';
import { slackSurface } from '../slack/surface.js';

/**
 * Every surface the config describes, whether or not its edge is on: a run's places and stored
 * triggers outlive a surface being switched off, and how those places behave does not change with it.
 */
export function registeredSurfaces(config: Pick<AppConfig, 'slack' | 'linear' | 'github' | 'jira' | 'schedules'>): Surfaces {
  return new Surfaces([
    slackSurface(config.slack.channels),
    linearSurface(config.linear.labels),
    githubSurface(config.github),
    jiraSurface(config.jira.labels),
    consoleSurface(routeChoices(config)),
  ]);
}
