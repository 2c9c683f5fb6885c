/**
 * `slack:` in `agent-bridge.yml` (docs/configuration.md, docs/slack.md): which channels route where and
 * how runs start there without a mention, who may use the bot, what a reply in a run's thread does,
 * and which links it reads.
 */
import { z } from 'zod';
import { contextSchema, followups, followupWindow } from '../../config-kit/conversation-keys.js';
import { always, emptyIfNull, optional, section, strict, text, withDefault } from '../../config-kit/file-schema-parts.js';
import type { RouteParts } from '../../config-kit/route-schema.js';
import { issueLinkKeys } from './issue-links.js';
import { ownUserIdSchema } from '../../config-kit/person-id-schema.js';
import { CHANNEL_ID_HINT, SLACK_CHANNEL_ID, SLACK_PERSON_IDS, SLACK_TEAM_ID } from './ids.js';

/** The reactions the bot itself adds (docs/slack.md): a person adding one of them must not start a run. */
const OWN_REACTIONS = ['eyes', 'incoming_envelope', 'white_check_mark', 'x'];

/** An emoji name as Slack writes it in `reaction_added` (colons optional here, and removed). */
const emojiName = z
  .string()
  .trim()
  .transform((name) => name.replace(/^:|:$/g, ''))
  .refine((name) => /^[a-z0-9_+'-]+$/.test(name), { error: 'is not an emoji name: write it as Slack shows it, e.g. robot_face or :robot_face:' })
  .refine((name) => !OWN_REACTIONS.includes(name), {
    error: `is one of the reactions the bot adds itself (${OWN_REACTIONS.join(', ')}): choose another emoji`,
  });

/** How a channel's runs start without a mention: a top-level message's first word(s), or a reaction. */
const channelTriggerSchema = strict({
  keywords: optional(z.array(text).min(1, { error: 'must list at least one keyword (or leave keywords out)' })),
  emoji: optional(emojiName),
});

/** A Slack channel by its ID, where a route or a schedule names one. */
export const slackChannelId = z.string().refine((id) => SLACK_CHANNEL_ID.test(id), { error: `is not a Slack channel ID — ${CHANNEL_ID_HINT}` });

const channelKey = z.string().refine((key) => key === '*' || SLACK_CHANNEL_ID.test(key), {
  error: `is not a channel ID or "*" — ${CHANNEL_ID_HINT}`,
});

/** A Slack user in `allowed_users`: `U0123ABCD`, or `slack:U0123ABCD` as other surfaces' people are written; read as `U0123ABCD`. */
const slackUserId = ownUserIdSchema({ name: 'slack', personIds: SLACK_PERSON_IDS });

const slackTeamId = z.string().refine((id) => SLACK_TEAM_ID.test(id), {
  error: 'is not a Slack team or enterprise ID — use IDs such as T0123ABCD (a workspace) or E0123ABCD (an Enterprise Grid org), not names or domains',
});

const domainName = z.string().refine((domain) => /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(domain), {
  error: 'is not a domain name: write the host alone, lower-case, e.g. app.example.com (no scheme, port or path)',
});

/** The `slack:` section; a channel's route may also say how runs start there without a mention (`trigger`). */
export function slackFileSection(parts: RouteParts) {
  const channelRouteSchema = z.preprocess(
    emptyIfNull,
    strict({ ...parts.surfaceRouteShape, trigger: optional(channelTriggerSchema) }).superRefine(parts.checkRouteTargets, always),
  );
  return section({
    followups: withDefault(followups, 'all'),
    context: contextSchema,
    // With followups: all, replies within this window after the first go to the run as one follow-up (0 = each alone).
    followup_window: followupWindow,
    allowed_users: withDefault(z.array(slackUserId), []),
    // Organisations whose people may use the bot besides our own workspace (and its org): Slack Connect guests of others are refused.
    allowed_teams: withDefault(z.array(slackTeamId), []),
    channels: withDefault(z.record(channelKey, channelRouteSchema), {}),
    ...issueLinkKeys(parts),
    // The session-link domains whose pasted links unfurl into the run's title, state and place.
    unfurl_domains: withDefault(z.array(domainName), []),
  });
}

export type SlackFile = z.output<ReturnType<typeof slackFileSection>>;
