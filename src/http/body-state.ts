import type { IncomingMessage } from 'node:http';

/** The declared `Content-Length`, or undefined when there is none (chunked) or it is not a number. */
export function declaredLength(req: IncomingMessage): number | undefined {
  const length = Number(req.headers['content-length']);
  return req.headers['content-length'] !== undefined && Number.isFinite(length) && length >= 0 ? length : undefined;
}

/** True while the request has a body that was not read to its end: answering now must close the connection. */
export function bodyUnread(req: IncomingMessage): boolean {
  if (req.complete) return false;
  const length = declaredLength(req);
  return length === undefined ? req.headers['transfer-encoding'] !== undefined : length > 0;
}
