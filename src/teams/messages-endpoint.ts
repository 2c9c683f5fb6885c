import type { Logger } from '../core/ports/logger.js';
import type { Endpoint } from '../http/server.js';
import { signedWebhookEndpoint, type WebhookOutcome } from '../http/signed-webhook.js';
import { bearerToken } from '../http/verify-bearer.js';
import type { ConnectorKeys } from './connector-keys.js';
import { parseActivity, type TeamsActivity } from './parse-activity.js';
import { connectorTokenCheck } from './verify-token.js';

/** An activity is a small JSON document; anything above is refused before it is read. */
export const TEAMS_BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * `POST /teams/messages`, the shared signed-webhook edge (`http/signed-webhook.ts`) with Teams' parts:
 * the Bot Connector's bearer token checked before the body is read (401), a 1 MiB limit (413), the
 * activity read (400 naming the field; a type the bot does not act on is 200 and ignored), its
 * `serviceUrl` vouched for by the token (401 otherwise), and the handler that stores what it means.
 */
export function teamsMessagesEndpoint(options: {
  clientId: string;
  keys: ConnectorKeys;
  serviceUrls: readonly string[];
  handle: (activity: TeamsActivity | { unauthorised: string }) => Promise<WebhookOutcome>;
  logger: Logger;
  now?: () => number;
}): Endpoint {
  return signedWebhookEndpoint<TeamsActivity | { unauthorised: string }>({
    path: '/teams/messages',
    name: 'teams',
    verifier: bearerToken({ check: connectorTokenCheck({ clientId: options.clientId, keys: options.keys }) }),
    refusal: (problem) => (problem === 'stale' ? 'Authorization: the token has expired' : 'Authorization: a Bot Connector token for this bot is required'),
    limitBytes: TEAMS_BODY_LIMIT_BYTES,
    ...(options.now && { now: options.now }),
    parse: (text, request) => parseActivity(text, request, options.serviceUrls),
    handle: (activity) => options.handle(activity),
    logFields: (activity) =>
      'unauthorised' in activity ? { unauthorised: true } : { type: activity.type, conversationType: activity.conversation.conversationType },
    logger: options.logger,
  });
}
