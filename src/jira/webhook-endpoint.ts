import type { Logger } from '../core/ports/logger.js';
import type { Endpoint } from '../http/server.js';
import { signedWebhookEndpoint, type WebhookOutcome } from '../http/signed-webhook.js';
import { parseJiraWebhook, type JiraWebhook } from './parse-webhook.js';
import { jiraSignature } from './verify-webhook.js';

/**
 * `POST /jira/webhook`, the shared signed-webhook edge (`http/signed-webhook.ts`) with Jira's parts:
 * `X-Hub-Signature` (refused before reading when missing or malformed), the server's limit, the
 * `X-Atlassian-Webhook-Identifier` id, the parse, and the handler that stores what the delivery
 * means. An event we do not read gets 200 (Jira retries anything else).
 */
export function jiraWebhookEndpoint(options: {
  secret: string;
  handle: (webhook: JiraWebhook, deliveryId: string | undefined) => Promise<WebhookOutcome>;
  logger: Logger;
}): Endpoint {
  return signedWebhookEndpoint<JiraWebhook>({
    path: '/jira/webhook',
    name: 'jira',
    verifier: jiraSignature(options.secret),
    delivery: { header: 'x-atlassian-webhook-identifier' },
    parse: (text) => {
      const parsed = parseJiraWebhook(text);
      return parsed.ok ? { ok: true, value: parsed.webhook } : parsed;
    },
    handle: (webhook, { deliveryId }) => options.handle(webhook, deliveryId),
    logFields: (webhook) => ({ event: webhook.event === 'other' ? webhook.name : webhook.event }),
    logger: options.logger,
  });
}
