/** `config.jira`: Jira Cloud's part of the validated configuration, from its variables and `jira:`. */
import type { ContextLimits, Followups } from '../../config-kit/conversation-keys.js';
import type { RouteParts } from '../../config-kit/route-schema.js';
import { compact, companionPlaces, toRoutes } from '../../config-kit/route-values.js';
import type { Route } from '../../core/intake/routing.js';
import type { JiraEnv } from './env.js';
import type { JiraFile } from './file.js';

/**
 * On when `JIRA_BASE_URL` is set (the other three variables come with it). The keys and meanings of
 * `linear`, with `projects` (project keys served; empty = all) for `teams`.
 */
export interface JiraSection {
  enabled: boolean;
  /** The site's origin, e.g. `https://acme.atlassian.net` (no trailing slash). */
  baseUrl?: string;
  email?: string;
  apiToken?: string;
  webhookSecret?: string;
  handle: string;
  followups: Followups;
  context: ContextLimits;
  /** `followup_window`: with `followups: all`, comments within it go as one follow-up; 0 = each alone. */
  followupWindowMs: number;
  cancelOnLabelRemoved: boolean;
  /** Label name, lower-cased → route. */
  labels: Record<string, Route>;
  /** Label name, lower-cased → its companion places (`<surface>:<value>`): chat places its runs also get a thread in (`slack_channel`…). */
  companions: Record<string, string[]>;
  /** Project keys, upper-cased; empty = all. */
  projects: string[];
  /** Atlassian account ids that may start, steer and stop runs besides the people who may edit the issue. */
  allowedUsers: string[];
  /** Workflow move (`started`, `pull_request`) → the name of the transition to make. */
  states: Record<string, string>;
}

/** `config.jira` from the `JIRA_*` variables and `jira:` (labels lower-cased, project keys upper-cased). */
export function resolveJira(env: JiraEnv, jira: JiraFile, parts: RouteParts): JiraSection {
  return {
    enabled: env.baseUrl !== undefined,
    ...compact({ baseUrl: env.baseUrl, email: env.email, apiToken: env.apiToken, webhookSecret: env.webhookSecret }),
    handle: jira.handle,
    followups: jira.followups,
    context: { ...jira.context },
    followupWindowMs: jira.followup_window,
    cancelOnLabelRemoved: jira.cancel_on_label_removed,
    labels: toRoutes(jira.labels, parts, (name) => name.trim().toLowerCase()),
    companions: companionPlaces(jira.labels, parts),
    projects: jira.projects.map((key) => key.trim().toUpperCase()),
    allowedUsers: [...jira.allowed_users],
    states: { ...jira.states },
  };
}
