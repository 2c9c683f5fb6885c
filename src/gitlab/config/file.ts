/**
 * `gitlab:` in `agent-bridge.yml` (docs/configuration.md, docs/gitlab.md): which projects and labels
 * start runs, who may besides members with Developer access, and what on a run's merge request reaches it.
 */
import { z } from 'zod';
import { always, section, withDefault } from '../../config-kit/file-schema-parts.js';
import type { RouteParts } from '../../config-kit/route-schema.js';
import { handleSchema, uniqueIgnoringCase } from '../../config-kit/tracker-keys.js';

/** `group/project`, or `group/subgroup/…/project`: GitLab's path characters, at least one slash. */
export const GITLAB_PROJECT_PATH = /^[A-Za-z0-9_.][A-Za-z0-9_.-]*(?:\/[A-Za-z0-9_.][A-Za-z0-9_.-]*)+$/;
/** A GitLab username: letters, digits, `_`, `-` and `.`. */
export const GITLAB_USERNAME = /^[A-Za-z0-9_.][A-Za-z0-9_.-]{0,254}$/;

const projectKey = z.string().refine((key) => key === '*' || (key.length <= 255 && GITLAB_PROJECT_PATH.test(key)), {
  error:
    'is not a project: write its path as "group/project" (e.g. acme/web, or acme/platform/api in a subgroup), or "*" for every other project the token can see',
});
const username = z.string().refine((name) => GITLAB_USERNAME.test(name), {
  error: 'is not a GitLab username: write it as in their profile URL, without @ (e.g. alice)',
});
const label = z.string().refine((name) => name.trim() !== '', { error: 'label name must not be empty' });

/** The `gitlab:` section. A route may name a chat place, as a GitHub route may. */
export function gitlabFileSection(parts: RouteParts) {
  const route = parts.companionRoute({});
  return section({
    handle: handleSchema,
    projects: withDefault(z.record(projectKey, route).superRefine(uniqueIgnoringCase('project'), always), {}),
    labels: withDefault(z.record(label, route).superRefine(uniqueIgnoringCase('label'), always), {}),
    allowed_users: withDefault(z.array(username), []),
    merge_requests: withDefault(z.enum(['none', 'mentions', 'reviews']), 'reviews'),
    pipeline_failures: withDefault(z.int().min(0).max(100), 0),
  });
}

export type GitlabFile = z.output<ReturnType<typeof gitlabFileSection>>;
