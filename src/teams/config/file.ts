/**
 * `teams:` in `agent-bridge.yml` (docs/configuration.md, docs/teams.md): which channels route where,
 * what a reply in a run's thread does, how much of the thread goes with a run, and who may use the bot.
 */
import { z } from 'zod';
import { contextSchema, followups } from '../../config-kit/conversation-keys.js';
import { always, emptyIfNull, section, strict, withDefault } from '../../config-kit/file-schema-parts.js';
import { ownUserIdSchema } from '../../config-kit/person-id-schema.js';
import type { RouteParts } from '../../config-kit/route-schema.js';
import { CHANNEL_ID_HINT, TEAMS_CHANNEL_ID, TEAMS_PERSON_IDS } from './ids.js';

/** A Teams channel by its conversation id, where a route or a schedule names one. */
export const teamsChannelId = z.string().refine((id) => TEAMS_CHANNEL_ID.test(id), { error: `is not a Teams channel id — ${CHANNEL_ID_HINT}` });

const channelKey = z.string().refine((key) => key === '*' || TEAMS_CHANNEL_ID.test(key), { error: `is not a channel id or "*" — ${CHANNEL_ID_HINT}` });

/** A Teams user in `allowed_users`: an Entra object id, bare or `teams:<id>`, read lower-case as activities carry it. */
const teamsUserId = ownUserIdSchema({ name: 'teams', personIds: TEAMS_PERSON_IDS }).transform((id) => id.toLowerCase());

/** The `teams:` section. */
export function teamsFileSection(parts: RouteParts) {
  const channelRouteSchema = z.preprocess(emptyIfNull, strict(parts.surfaceRouteShape).superRefine(parts.checkRouteTargets, always));
  return section({
    followups: withDefault(followups, 'mentions'),
    allowed_users: withDefault(z.array(teamsUserId), []),
    channels: withDefault(z.record(channelKey, channelRouteSchema), {}),
    context: contextSchema,
  });
}

export type TeamsFile = z.output<ReturnType<typeof teamsFileSection>>;
