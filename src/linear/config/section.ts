/** `config.linear`: Linear's part of the validated configuration, from its variables and `linear:`. */
import type { ContextLimits, Followups } from '../../config-kit/conversation-keys.js';
import type { RouteParts } from '../../config-kit/route-schema.js';
import { compact, companionPlaces, toRoutes } from '../../config-kit/route-values.js';
import type { Route } from '../../core/intake/routing.js';
import type { LinearEnv } from './env.js';
import type { LinearFile } from './file.js';

/** Linear's part of the validated configuration (`config.linear`). */
export interface LinearSection {
  enabled: boolean;
  apiKey?: string;
  accessToken?: string;
  webhookSecret?: string;
  apiUrl: string;
  handle: string;
  followups: Followups;
  context: ContextLimits;
  /** `followup_window`: with `followups: all`, replies within it go as one follow-up; 0 = each alone. */
  followupWindowMs: number;
  cancelOnLabelRemoved: boolean;
  /** Label name, lower-cased → route. */
  labels: Record<string, Route>;
  /** Label name, lower-cased → its companion places (`<surface>:<value>`): chat places its runs also get a thread in (`slack_channel`…). */
  companions: Record<string, string[]>;
  /** Label name, lower-cased → the projects (names or ids, as written) whose issues that route also matches (`projects`). */
  projects: Record<string, string[]>;
  /** Team keys; empty = all. */
  teams: string[];
  /** User ids (lower-cased) that may start, steer and stop runs though they are guests of the workspace. */
  allowedUsers: string[];
  /** Workflow move name → Linear workflow state name, as written in the file. */
  states: Record<string, string>;
}

/** `config.linear` from its variables and `linear:` (labels lower-cased, guests' user ids lower-cased). */
export function resolveLinear(env: LinearEnv, file: LinearFile, parts: RouteParts): LinearSection {
  return {
    enabled: (env.apiKey !== undefined || env.accessToken !== undefined) && env.webhookSecret !== undefined,
    ...compact({ apiKey: env.apiKey, accessToken: env.accessToken, webhookSecret: env.webhookSecret }),
    apiUrl: env.apiUrl,
    handle: file.handle,
    followups: file.followups,
    context: { ...file.context },
    followupWindowMs: file.followup_window,
    cancelOnLabelRemoved: file.cancel_on_label_removed,
    labels: toRoutes(file.labels, parts, (name) => name.trim().toLowerCase()),
    companions: companionPlaces(file.labels, parts),
    projects: Object.fromEntries(
      Object.entries(file.labels).flatMap(([name, route]) => (route.projects ? [[name.trim().toLowerCase(), route.projects.map((p) => p.trim())]] : [])),
    ),
    teams: [...file.teams],
    allowedUsers: file.allowed_users.map((id) => id.toLowerCase()),
    states: { ...file.states },
  };
}
