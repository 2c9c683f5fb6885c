import type { Route } from '../../src/core/intake/routing.js';
import { Surfaces } from '../../src/core/surfaces.js';
import { githubSurface } from '../../src/github/surface.js';
import { jiraSurface } from '../../src/jira/surface.js';
import { linearSurface } from '../../src/linear/surface.js';
import { slackSurface } from '../../src/slack/surface.js';

/**
 * Slack, Linear, GitHub and Jira as the composition root registers them (`compose/surfaces.ts`), for
 * core tests that build their parts by hand; `routes` are `slack.channels`, `linear.labels`,
 * `github.repos` (GitHub on: a run's pull request on one of those repositories becomes its place) and
 * `jira.labels`.
 */
export function testSurfaces(
  routes: { slack?: Record<string, Route>; linear?: Record<string, Route>; githubRepos?: Record<string, Route>; jira?: Record<string, Route> } = {},
): Surfaces {
  return new Surfaces([
    slackSurface(routes.slack ?? {}),
    linearSurface(routes.linear ?? {}),
    githubSurface({ enabled: routes.githubRepos !== undefined, webUrl: 'https://github.com', repos: routes.githubRepos ?? {}, labels: {} }),
    jiraSurface(routes.jira ?? {}),
  ]);
}
