import type { ServerResponse } from 'node:http';

/** An answer we mean to give: status, stable code and a message safe to show the caller. */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/**
 * The one place that turns an error thrown by a route into an HTTP answer. An `HttpError` is the
 * caller's fault and answered as such; anything else is ours: a 500 whose body says nothing inside.
 */
export function answerError(res: ServerResponse, error: unknown): { status: number; code: string; internal: boolean } {
  if (error instanceof HttpError) {
    // A body cut off unread (too large) leaves the connection unusable: the client must not reuse it.
    const headers: Record<string, string> = error.status === 413 ? { connection: 'close' } : {};
    sendJson(res, error.status, { error: error.code, message: error.message }, headers);
    return { status: error.status, code: error.code, internal: false };
  }
  sendJson(res, 500, { error: 'internal_error', message: 'internal error; see the service log' });
  return { status: 500, code: 'internal_error', internal: true };
}
