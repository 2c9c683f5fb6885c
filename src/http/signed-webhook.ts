import type { IncomingHttpHeaders } from 'node:http';
import type { Logger } from '../core/ports/logger.js';
import { HttpError, sendJson } from './http-error.js';
import type { Endpoint } from './server.js';
import { signedBodyEdge, type SignedBodyOptions } from './signed-body.js';
import { headerValue } from './webhook-verifier.js';

/**
 * What a surface's handler made of a verified, parsed delivery; the caller is told the outcome, or
 * `answer` where the platform reads the answer (a chat's button press answered with a message).
 */
export type WebhookOutcome = { outcome: 'stored' | 'duplicate' | 'ignored'; reason?: string; answer?: unknown };

/** What a surface's parse and handle know of the request besides its body. */
export interface WebhookRequest {
  headers: IncomingHttpHeaders;
  /** The platform's id of the delivery (the same on its retries: a dedupe key), when it sent one that fits. */
  deliveryId: string | undefined;
  /** What the credential said of the sender, if anything (a bearer token's claims). */
  claims: Readonly<Record<string, unknown>> | undefined;
}

/** A parsed delivery; an event the surface does not handle; or a body it cannot read (400, naming why). */
export type WebhookParse<T> = { ok: true; value: T } | { ok: true; ignored: string; log?: Record<string, unknown> } | { ok: false; reason: string };

/** A surface's signed webhook: where it is, how it is proven, read and handled. */
export interface SignedWebhook<T> extends SignedBodyOptions {
  path: string;
  /** The surface's name, as its log lines say it (`<name> webhook`). */
  name: string;
  /**
   * The header carrying the delivery's id. With a `shape`, the id (trimmed) is given only when it has
   * that shape; without, it is given as sent, cut to 200 characters.
   */
  delivery?: { header: string; shape?: RegExp };
  /** Reads the decoded body (a schema naming the field that fails): never throws for bad input. */
  parse(text: string, request: WebhookRequest): WebhookParse<T>;
  /** For a time signed inside the body: why the delivery is outside its window (401 `stale_timestamp`), if it is. */
  outdated?(value: T, nowMs: number): string | undefined;
  /** Decides with the store and stores what the delivery means, before the platform gets its answer. */
  handle(value: T, request: WebhookRequest): Promise<WebhookOutcome>;
  /** What a debug line says of a handled delivery (its event, never its text). */
  logFields(value: T): Record<string, unknown>;
  logger: Logger;
}

/** A reason may quote field paths of the body, however deep: an answer carries at most this much of one. */
const REASON_CHARS = 300;

function deliveryIdOf(headers: IncomingHttpHeaders, delivery: SignedWebhook<unknown>['delivery']): string | undefined {
  if (!delivery) return undefined;
  const value = headerValue(headers, delivery.header);
  if (!delivery.shape) return value?.slice(0, 200);
  const trimmed = value?.trim();
  return trimmed !== undefined && delivery.shape.test(trimmed) ? trimmed : undefined;
}

/**
 * `POST <path>` for a platform's signed webhook (docs/architecture.md §8), every step in one order and
 * with one error mapping: the signed body (`signedBodyEdge`: 401 `invalid_signature` before reading
 * when the headers condemn the request, 413 over the limit, 401 when the signature does not match the
 * bytes, 400 `malformed` for invalid UTF-8), then the delivery id, the surface's parse (400 `malformed`
 * naming the field; an event it does not handle is 200 `ignored` and stores nothing), a time signed
 * in the body (401 `stale_timestamp`), the surface's handle, which stores what the delivery means,
 * and only then 200 with its outcome. Bad input changes nothing, never gets a 5xx, and logs at debug.
 */
export function signedWebhookEndpoint<T>(spec: SignedWebhook<T>): Endpoint {
  const edge = signedBodyEdge(spec);
  const now = spec.now ?? Date.now;
  return {
    method: 'POST',
    path: spec.path,
    acknowledges: true,
    body: edge.body,
    handle: async (req, res, readBody) => {
      const { text, claims } = await edge.read(req, readBody);
      const deliveryId = deliveryIdOf(req.headers, spec.delivery);
      const request: WebhookRequest = { headers: req.headers, deliveryId, claims };
      const parsed = spec.parse(text, request);
      if (!parsed.ok) throw new HttpError(400, 'malformed', parsed.reason.slice(0, REASON_CHARS));
      if ('ignored' in parsed) {
        spec.logger.debug({ ...parsed.log, deliveryId }, `${spec.name} webhook: event not handled`);
        sendJson(res, 200, { ok: true, outcome: 'ignored' });
        return;
      }
      const outdated = spec.outdated?.(parsed.value, now());
      if (outdated) throw new HttpError(401, 'stale_timestamp', outdated);
      const result = await spec.handle(parsed.value, request);
      spec.logger.debug({ ...spec.logFields(parsed.value), deliveryId, outcome: result.outcome, reason: result.reason }, `${spec.name} webhook`);
      sendJson(res, 200, result.answer ?? { ok: true, outcome: result.outcome });
    },
  };
}
