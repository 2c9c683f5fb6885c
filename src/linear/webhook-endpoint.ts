import type { Logger } from '../core/ports/logger.js';
import type { Endpoint } from '../http/server.js';
import { signedWebhookEndpoint, type WebhookOutcome } from '../http/signed-webhook.js';
import { parseLinearWebhook, type LinearWebhook } from './parse-webhook.js';
import { checkWebhookTimestamp, linearSignature } from './verify-webhook.js';

/**
 * `POST /linear/webhook`, the shared signed-webhook edge (`http/signed-webhook.ts`) with Linear's
 * parts: `linear-signature` (refused before reading when missing or malformed), the server's 1 MiB
 * limit, the `Linear-Delivery` id, the parse that names the field, the `webhookTimestamp` window
 * (signed inside the body: 401 `stale_timestamp` outside it), and the handler that stores what the
 * delivery means. An event we do not handle gets 200 (Linear would retry anything else).
 */
export function linearWebhookEndpoint(options: {
  secret: string;
  handle: (envelope: LinearWebhook, deliveryId: string | undefined) => Promise<WebhookOutcome>;
  logger: Logger;
  now?: () => number;
}): Endpoint {
  return signedWebhookEndpoint<LinearWebhook>({
    path: '/linear/webhook',
    name: 'linear',
    verifier: linearSignature(options.secret),
    ...(options.now && { now: options.now }),
    delivery: { header: 'linear-delivery' },
    parse: (text) => {
      const parsed = parseLinearWebhook(text);
      return parsed.ok ? { ok: true, value: parsed.envelope } : parsed;
    },
    outdated: (envelope, nowMs) =>
      checkWebhookTimestamp(envelope.webhookTimestamp, nowMs) === 'ok'
        ? undefined
        : 'webhookTimestamp is more than 60 s from now (a replay, or a clock far off)',
    handle: (envelope, { deliveryId }) => options.handle(envelope, deliveryId),
    logFields: (envelope) => ({ type: envelope.type.slice(0, 40), action: envelope.action.slice(0, 40) }),
    logger: options.logger,
  });
}
