import type { Route } from '../../src/core/intake/routing.js';
import { Surfaces } from '../../src/core/surfaces.js';
import { jiraSurface } from '../../src/jira/surface.js';
import { linearSurface } from '../../src/linear/surface.js';
import { slackSurface } from '../../src/slack/surface.js';

/**
 * Slack, Linear and Jira as the composition root registers them (`compose/surfaces.ts`), for core
 * tests that build their parts by hand; `routes` are `slack.channels`, `linear.labels` and `jira.labels`.
 */
export function testSurfaces(routes: { slack?: Record<string, Route>; linear?: Record<string, Route>; jira?: Record<string, Route> } = {}): Surfaces {
  return new Surfaces([slackSurface(routes.slack ?? {}), linearSurface(routes.linear ?? {}), jiraSurface(routes.jira ?? {})]);
}
