import type { IncomingMessage, ServerResponse } from 'node:http';
import { SPAN } from '../core/ports/trace-names.js';
import { tracing } from '../core/ports/tracing.js';
import { headerValue } from './webhook-verifier.js';

/**
 * Runs a route's handler (`handle`); a request a surface sent us (a route that `acknowledges`: every
 * webhook, Slack's events) inside a server span of its own while tracing is on. The span starts a
 * trace: a sender's `traceparent` is only linked, never trusted as a parent, since anyone can send one.
 * What the request is about (surface, place, person, trigger key) is set by the intake as it stores it.
 */
export function handleTraced(
  route: { method: string; path: string; acknowledges?: boolean },
  req: IncomingMessage,
  res: ServerResponse,
  handle: () => Promise<void> | void,
): Promise<void> | void {
  const traces = tracing();
  if (!traces.on || !route.acknowledges) return handle();
  const attributes = { 'http.request.method': route.method, 'http.route': route.path };
  return traces.inSpan(SPAN.request, { kind: 'server', root: true, links: [headerValue(req.headers, 'traceparent')], attributes }, async (span) => {
    await handle();
    span.setAttribute('http.response.status_code', res.statusCode);
  });
}
