/** `config.gitlab`: GitLab's part of the validated configuration (docs/gitlab.md), from its variables and `gitlab:`. */
import type { RouteParts } from '../../config-kit/route-schema.js';
import { compact, companionPlaces, toRoutes } from '../../config-kit/route-values.js';
import type { Route } from '../../core/intake/routing.js';
import type { GitlabEnv } from './env.js';
import type { GitlabFile } from './file.js';

/** `gitlab.merge_requests`: what on a run's own merge request goes to the run. */
export type GitlabMergeRequests = 'none' | 'mentions' | 'reviews';

/** On when `GITLAB_TOKEN` is set (the webhook secret is then required). */
export interface GitlabSection {
  enabled: boolean;
  token?: string;
  /** The webhook's secret token, or its Standard Webhooks signing token (`whsec_…`). */
  webhookSecret?: string;
  /** The instance, no trailing slash. */
  url: string;
  handle: string;
  /** Project path lower-cased (or `*`) → route. */
  projects: Record<string, Route>;
  /** Label name lower-cased → route. */
  labels: Record<string, Route>;
  /** A route's companion places, by project and by label (keys as above). */
  companions: { projects: Record<string, string[]>; labels: Record<string, string[]> };
  /** Usernames, lower-cased, that may start and steer besides members with Developer access or more. */
  allowedUsers: string[];
  mergeRequests: GitlabMergeRequests;
  /** Follow-ups per run for failed pipelines of its merge request (0 = never). */
  pipelineFailures: number;
}

const lowerCased = (name: string) => name.trim().toLowerCase();

/** `config.gitlab` from its variables and `gitlab:` (projects and labels keyed lower-cased). */
export function resolveGitlab(env: GitlabEnv, file: GitlabFile, parts: RouteParts): GitlabSection {
  return {
    enabled: env.token !== undefined,
    ...compact({ token: env.token, webhookSecret: env.webhookSecret }),
    url: env.url,
    handle: file.handle,
    projects: toRoutes(file.projects, parts, lowerCased),
    labels: toRoutes(file.labels, parts, lowerCased),
    companions: { projects: companionPlaces(file.projects, parts), labels: companionPlaces(file.labels, parts) },
    allowedUsers: file.allowed_users.map((name) => name.toLowerCase()),
    mergeRequests: file.merge_requests,
    pipelineFailures: file.pipeline_failures,
  };
}
