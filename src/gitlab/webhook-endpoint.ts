import type { IncomingHttpHeaders } from 'node:http';
import type { Logger } from '../core/ports/logger.js';
import type { Endpoint } from '../http/server.js';
import { signedWebhookEndpoint, type WebhookOutcome, type WebhookParse } from '../http/signed-webhook.js';
import { sharedToken } from '../http/verify-shared-token.js';
import { standardWebhooks } from '../http/verify-standard-webhooks.js';
import { headerValue, type WebhookVerifier } from '../http/webhook-verifier.js';
import { parseGitlabWebhook, type GitlabEvent } from './parse-webhook.js';

/** GitLab's payloads are small JSON documents (a note or description is at most 1,000,000 characters). */
export const GITLAB_BODY_LIMIT_BYTES = 1024 * 1024;

/** `Idempotency-Key`: a UUID per delivery, the same on GitLab's retries of it. */
const DELIVERY = /^[0-9A-Za-z_-]{1,100}$/;

/**
 * How a delivery proves it comes from the hook: a signing token (`whsec_…`) signs each delivery as
 * Standard Webhooks do, five minutes either way; any other secret comes back as `X-Gitlab-Token`,
 * compared in constant time. Either is refused before the body is read when the headers condemn it.
 */
export function gitlabVerifier(secret: string): WebhookVerifier {
  return secret.startsWith('whsec_') ? standardWebhooks({ secret }) : sharedToken({ header: 'X-Gitlab-Token', token: secret });
}

/** A verified delivery, with its `Idempotency-Key` when it carries one. */
export interface GitlabDelivery {
  event: GitlabEvent;
  deliveryId: string | undefined;
}

function parseDelivery(text: string, headers: IncomingHttpHeaders, deliveryId: string | undefined): WebhookParse<GitlabDelivery> {
  const hook = headerValue(headers, 'x-gitlab-event');
  const parsed = parseGitlabWebhook(hook, text);
  if (!parsed.ok) return parsed;
  if ('ignored' in parsed) return { ok: true, ignored: parsed.ignored, log: { hook: hook?.slice(0, 60) } };
  return { ok: true, value: { event: parsed.event, deliveryId } };
}

/**
 * `POST /gitlab/webhook`, the shared signed-webhook edge (`http/signed-webhook.ts`) with GitLab's
 * parts: the secret token or signature (401 before the body where the headers already fail), a 1 MiB
 * limit (413), the hook's schema (400 naming the field; a hook we do not read is 200 and ignored), and
 * the handler that stores what the delivery means. Dedupe is on `Idempotency-Key`, one per delivery
 * and its retries — not on `X-Gitlab-Event-UUID`, which every hook one action fires shares.
 */
export function gitlabWebhookEndpoint(options: {
  secret: string;
  handle: (delivery: GitlabDelivery) => Promise<WebhookOutcome>;
  logger: Logger;
  now?: () => number;
}): Endpoint {
  return signedWebhookEndpoint<GitlabDelivery>({
    path: '/gitlab/webhook',
    name: 'gitlab',
    verifier: gitlabVerifier(options.secret),
    limitBytes: GITLAB_BODY_LIMIT_BYTES,
    ...(options.now && { now: options.now }),
    delivery: { header: 'Idempotency-Key', shape: DELIVERY },
    parse: (text, request) => parseDelivery(text, request.headers, request.deliveryId),
    handle: (delivery) => options.handle(delivery),
    logFields: ({ event }) => ({ kind: event.kind }),
    logger: options.logger,
  });
}
