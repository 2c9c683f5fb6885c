import type { IncomingHttpHeaders } from 'node:http';
import type { Logger } from '../core/ports/logger.js';
import type { Endpoint } from '../http/server.js';
import { signedWebhookEndpoint, type WebhookOutcome, type WebhookParse } from '../http/signed-webhook.js';
import { headerValue } from '../http/webhook-verifier.js';
import { parseGithubWebhook, type GithubEvent } from './parse-webhook.js';
import { githubSignature } from './verify-webhook.js';

/** GitHub's payloads are small JSON documents; an issue body is at most 65,536 characters. */
export const GITHUB_BODY_LIMIT_BYTES = 1024 * 1024;

const DELIVERY = /^[0-9a-zA-Z-]{1,100}$/;

/** A delivery GitHub signed, with its id: every act is deduplicated on it first. */
interface GithubDelivery {
  delivery: GithubEvent;
  deliveryId: string;
}

/** The id first (GitHub always sends one: a delivery without is no delivery of GitHub's), then the event's schema. */
function parseDelivery(text: string, headers: IncomingHttpHeaders, deliveryId: string | undefined): WebhookParse<GithubDelivery> {
  if (!deliveryId) return { ok: false, reason: 'X-GitHub-Delivery is missing or malformed' };
  const event = headerValue(headers, 'x-github-event');
  const parsed = parseGithubWebhook(event, text);
  if (!parsed.ok) return parsed;
  if ('ignored' in parsed) return { ok: true, ignored: parsed.ignored, log: { event: event?.slice(0, 40) } };
  return { ok: true, value: { delivery: parsed.delivery, deliveryId } };
}

/**
 * `POST /github/webhook`, the shared signed-webhook edge (`http/signed-webhook.ts`) with GitHub's
 * parts: `X-Hub-Signature-256` (refused before reading when missing or malformed), a 1 MiB limit, the
 * `X-GitHub-Delivery` id (400 when missing or malformed), each event's zod schema (an event we do not
 * handle is 200 and ignored), and the handler that stores what the delivery means.
 */
export function githubWebhookEndpoint(options: {
  secret: string;
  handle: (delivery: GithubEvent, deliveryId: string) => Promise<WebhookOutcome>;
  logger: Logger;
}): Endpoint {
  return signedWebhookEndpoint<GithubDelivery>({
    path: '/github/webhook',
    name: 'github',
    verifier: githubSignature(options.secret),
    limitBytes: GITHUB_BODY_LIMIT_BYTES,
    delivery: { header: 'X-GitHub-Delivery', shape: DELIVERY },
    parse: (text, request) => parseDelivery(text, request.headers, request.deliveryId),
    handle: ({ delivery, deliveryId }) => options.handle(delivery, deliveryId),
    logFields: ({ delivery }) => ({ event: delivery.event }),
    logger: options.logger,
  });
}
