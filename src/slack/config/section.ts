/** `config.slack`: Slack's part of the validated configuration, from its variables and `slack:`. */
import type { ContextLimits, Followups } from '../../config-kit/conversation-keys.js';
import type { RouteParts } from '../../config-kit/route-schema.js';
import { compact, toRoutes } from '../../config-kit/route-values.js';
import type { Route } from '../../core/intake/routing.js';
import type { ChannelTrigger } from '../start-triggers.js';
import type { SlackEnv } from './env.js';
import type { SlackFile } from './file.js';
import type { IssueLinkOffer } from '../../config-kit/tracker-keys.js';
import { resolveIssueLinks } from './issue-links.js';

/** How Slack's events arrive: off, signed HTTP requests, or Socket Mode. */
export type SlackMode = 'off' | 'http' | 'socket';

/** Slack's part of the validated configuration (`config.slack`). */
export interface SlackSection {
  enabled: boolean;
  /** `socket` when `SLACK_APP_TOKEN` is set (wins over the signing secret), else `http`. */
  mode: SlackMode;
  botToken?: string;
  signingSecret?: string;
  appToken?: string;
  /** Always ends in `/` (the Web API client appends the method name). */
  apiUrl: string;
  followups: Followups;
  context: ContextLimits;
  /** `followup_window`: with `followups: all`, replies within it go as one follow-up; 0 = each alone. */
  followupWindowMs: number;
  /** Slack user IDs; empty = everyone the organisations below let in. */
  allowedUsers: string[];
  /** Slack team (T…) and enterprise (E…) IDs whose people may use the bot besides our own workspace and its org; empty = ours only. */
  allowedTeams: string[];
  /** Channel ID (or `*`) → route. */
  channels: Record<string, Route>;
  /** Channel ID (or `*`) → how runs start there without a mention (`trigger`); only entries that set one. */
  triggers: Record<string, ChannelTrigger>;
  /** The trackers whose issues a mention binds its run to (`link_<tracker>_issues: true`). */
  linksIssuesOf: IssueLinkOffer[];
  /** `slack.unfurl_domains`: session-link domains whose pasted links unfurl; empty = none. */
  unfurlDomains: string[];
}

/** `config.slack` from its variables and `slack:`: Socket Mode when an app-level token is set, each channel's trigger apart from its route. */
export function resolveSlack(env: SlackEnv, file: SlackFile, parts: RouteParts): SlackSection {
  const enabled = env.botToken !== undefined;
  return {
    enabled,
    mode: enabled ? (env.appToken !== undefined ? 'socket' : 'http') : 'off',
    ...compact({ botToken: env.botToken, signingSecret: env.signingSecret, appToken: env.appToken }),
    apiUrl: env.apiUrl,
    followups: file.followups,
    context: { ...file.context },
    followupWindowMs: file.followup_window,
    allowedUsers: [...file.allowed_users],
    allowedTeams: [...file.allowed_teams],
    channels: toRoutes(file.channels, parts),
    triggers: Object.fromEntries(
      Object.entries(file.channels).flatMap(([channel, route]) =>
        route.trigger ? [[channel, { keywords: [...(route.trigger.keywords ?? [])], ...compact({ emoji: route.trigger.emoji }) }]] : [],
      ),
    ),
    linksIssuesOf: resolveIssueLinks(file, parts),
    unfurlDomains: [...file.unfurl_domains],
  };
}
