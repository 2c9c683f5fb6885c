import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../core/ports/logger.js';
import { HttpError, sendJson } from '../http/http-error.js';
import type { Endpoint } from '../http/server.js';
import { parseGithubWebhook, type GithubEvent } from './parse-webhook.js';
import { githubSignatureHeaderMalformed, verifyGithubSignature } from './verify-webhook.js';
import type { WebhookOutcome } from './webhook-handler.js';

/** GitHub's payloads are small JSON documents; an issue body is at most 65,536 characters. */
export const GITHUB_BODY_LIMIT_BYTES = 1024 * 1024;

const header = (req: IncomingMessage, name: string) => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

const invalidSignature = () => new HttpError(401, 'invalid_signature', 'X-Hub-Signature-256 is missing or does not match the body');
const DELIVERY = /^[0-9a-zA-Z-]{1,100}$/;

/**
 * `POST /github/webhook`: refuse a missing or malformed `X-Hub-Signature-256` before reading, read the
 * raw body within the limit (413 beyond), verify the signature over those bytes (401), parse (400
 * naming the field; an event we do not handle is 200 and ignored), store what the delivery means,
 * answer 200. Bad input changes nothing and never gets a 5xx.
 */
export function githubWebhookEndpoint(options: {
  secret: string;
  handle: (delivery: GithubEvent, deliveryId: string) => Promise<WebhookOutcome>;
  logger: Logger;
}): Endpoint {
  return {
    method: 'POST',
    path: '/github/webhook',
    acknowledges: true,
    body: {
      limitBytes: GITHUB_BODY_LIMIT_BYTES,
      refuse: (req) => (githubSignatureHeaderMalformed(header(req, 'x-hub-signature-256')) ? invalidSignature() : undefined),
    },
    handle: async (req: IncomingMessage, res: ServerResponse, readBody) => {
      const raw = await readBody();
      if (!(await verifyGithubSignature(options.secret, header(req, 'x-hub-signature-256'), raw))) throw invalidSignature();
      const event = header(req, 'x-github-event');
      const deliveryId = header(req, 'x-github-delivery')?.trim();
      if (!deliveryId || !DELIVERY.test(deliveryId)) throw new HttpError(400, 'malformed', 'X-GitHub-Delivery is missing or malformed');
      const parsed = parseGithubWebhook(event, raw.toString('utf8'));
      if (!parsed.ok) throw new HttpError(400, 'malformed', parsed.reason);
      if ('ignored' in parsed) {
        options.logger.debug({ event: event?.slice(0, 40), deliveryId }, 'github webhook: event not handled');
        sendJson(res, 200, { ok: true, outcome: 'ignored' });
        return;
      }
      const result = await options.handle(parsed.delivery, deliveryId);
      options.logger.debug({ event: parsed.delivery.event, deliveryId, ...result }, 'github webhook');
      sendJson(res, 200, { ok: true, outcome: result.outcome });
    },
  };
}
