import type { ServerResponse } from 'node:http';
import { bodyUnread } from './body-state.js';

/** An answer we mean to give: status, stable code and a message safe to show the caller. */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Headers the answer carries, e.g. `retry-after`. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/**
 * Answers with a JSON body. An answer given before the request's body was read to its end closes the
 * connection: the rest of that body is never waited for (it may be a megabyte, or never come).
 */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  const close: Record<string, string> = res.req && bodyUnread(res.req) ? { connection: 'close' } : {};
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...close, ...headers });
  res.end(text);
}

/**
 * The one place that turns an error thrown by a route into an HTTP answer. An `HttpError` is the
 * caller's fault and answered as such; anything else is ours: a 500 whose body says nothing inside.
 */
export function answerError(res: ServerResponse, error: unknown): { status: number; code: string; internal: boolean } {
  if (error instanceof HttpError) {
    sendJson(res, error.status, { error: error.code, message: error.message }, error.headers);
    return { status: error.status, code: error.code, internal: false };
  }
  sendJson(res, 500, { error: 'internal_error', message: 'internal error; see the service log' });
  return { status: 500, code: 'internal_error', internal: true };
}
