import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../core/ports/logger.js';
import { HttpError, sendJson } from '../http/http-error.js';
import type { Endpoint } from '../http/server.js';
import { parseJiraWebhook, type JiraWebhook } from './parse-webhook.js';
import { jiraSignatureHeaderMalformed, verifyJiraSignature } from './verify-webhook.js';
import type { WebhookOutcome } from './webhook-handler.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });
const header = (req: IncomingMessage, name: string) => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

const invalidSignature = () => new HttpError(401, 'invalid_signature', 'X-Hub-Signature is missing or does not match the body');

/**
 * `POST /jira/webhook`: refuse a missing or malformed `X-Hub-Signature` before reading, read the raw
 * body (the server's limit: 413 above it), verify the signature over those exact bytes before anything
 * else, parse, store what the delivery means, answer 200. Bad input gets a 4xx and changes nothing; an
 * event we do not read gets 200 (Jira retries anything else).
 */
export function jiraWebhookEndpoint(options: {
  secret: string;
  handle: (webhook: JiraWebhook, deliveryId: string | undefined) => Promise<WebhookOutcome>;
  logger: Logger;
}): Endpoint {
  return {
    method: 'POST',
    path: '/jira/webhook',
    acknowledges: true,
    body: { refuse: (req) => (jiraSignatureHeaderMalformed(header(req, 'x-hub-signature')) ? invalidSignature() : undefined) },
    handle: async (req: IncomingMessage, res: ServerResponse, readBody) => {
      const raw = await readBody();
      if (!verifyJiraSignature(options.secret, header(req, 'x-hub-signature'), raw)) throw invalidSignature();
      let text: string;
      try {
        text = utf8.decode(raw);
      } catch {
        throw new HttpError(400, 'malformed', 'body is not valid UTF-8');
      }
      const parsed = parseJiraWebhook(text);
      if (!parsed.ok) throw new HttpError(400, 'malformed', parsed.reason.slice(0, 300));
      const deliveryId = header(req, 'x-atlassian-webhook-identifier')?.slice(0, 200);
      const result = await options.handle(parsed.webhook, deliveryId);
      const event = parsed.webhook.event === 'other' ? parsed.webhook.name : parsed.webhook.event;
      options.logger.debug({ event, deliveryId, ...result }, 'jira webhook');
      sendJson(res, 200, { ok: true, outcome: result.outcome });
    },
  };
}
