import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../core/ports/logger.js';
import { HttpError, sendJson } from '../http/http-error.js';
import type { Endpoint } from '../http/server.js';
import { parseLinearWebhook, type LinearWebhook } from './parse-webhook.js';
import { checkWebhookTimestamp, linearSignatureHeaderMalformed, verifyLinearSignature } from './verify-webhook.js';
import type { WebhookOutcome } from './webhook-handler.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });
const header = (req: IncomingMessage, name: string) => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

const invalidSignature = () => new HttpError(401, 'invalid_signature', 'linear-signature is missing or does not match the body');

/**
 * `POST /linear/webhook`: refuse a missing or malformed `linear-signature` before reading, read the
 * raw body (1 MiB limit), verify `linear-signature` over those exact bytes, parse, check the
 * `webhookTimestamp` window, store what the delivery means, answer 200. Bad
 * input gets a 4xx and changes nothing; an event we do not handle gets 200 (Linear would retry
 * anything else).
 */
export function linearWebhookEndpoint(options: {
  secret: string;
  handle: (envelope: LinearWebhook, deliveryId: string | undefined) => Promise<WebhookOutcome>;
  logger: Logger;
  now?: () => number;
}): Endpoint {
  const now = options.now ?? Date.now;
  return {
    method: 'POST',
    path: '/linear/webhook',
    acknowledges: true,
    body: { refuse: (req) => (linearSignatureHeaderMalformed(header(req, 'linear-signature')) ? invalidSignature() : undefined) },
    handle: async (req: IncomingMessage, res: ServerResponse, readBody) => {
      const raw = await readBody();
      if (!verifyLinearSignature(options.secret, header(req, 'linear-signature'), raw)) throw invalidSignature();
      let text: string;
      try {
        text = utf8.decode(raw);
      } catch {
        throw new HttpError(400, 'malformed', 'body is not valid UTF-8');
      }
      const parsed = parseLinearWebhook(text);
      if (!parsed.ok) throw new HttpError(400, 'malformed', parsed.reason);
      const timestamp = checkWebhookTimestamp(parsed.envelope.webhookTimestamp, now());
      if (timestamp !== 'ok') throw new HttpError(401, 'stale_timestamp', 'webhookTimestamp is more than 60 s from now (a replay, or a clock far off)');
      const deliveryId = header(req, 'linear-delivery')?.slice(0, 200);
      const result = await options.handle(parsed.envelope, deliveryId);
      options.logger.debug({ type: parsed.envelope.type.slice(0, 40), action: parsed.envelope.action.slice(0, 40), deliveryId, ...result }, 'linear webhook');
      sendJson(res, 200, { ok: true, outcome: result.outcome });
    },
  };
}
