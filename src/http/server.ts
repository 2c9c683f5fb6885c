import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { systemClock, type Clock } from '../core/ports/clock.js';
import type { Logger } from '../core/ports/logger.js';
import type { AckFirst } from './ack-first.js';
import { BodyBudget, DEFAULT_BODY_BUDGET } from './body-budget.js';
import type { BodyPace } from './body-pace.js';
import { bodyUnread } from './body-state.js';
import { answerError, sendJson, type HttpError } from './http-error.js';
import type { Metrics } from './metrics.js';
import { RequestTurns } from './request-turns.js';
import { handleTraced } from './request-span.js';
import { BODY_LIMIT_BYTES, BODY_STALL_MS, declaresTooLarge, isClientAbort, readBody } from './read-body.js';

/**
 * Reads the request's raw body for a route: within the route's limit (413), held against the
 * process-wide budget of unverified bodies (503 when full, or when a faster body needs the room of
 * one that arrives too slowly), closed when it stalls or falls behind the minimum pace (408).
 */
export type ReadRequestBody = () => Promise<Buffer>;

/** A route of the one HTTP server. Handlers get the unread request: some need the raw body. */
export interface Endpoint {
  method: 'GET' | 'POST';
  path: string;
  /** Also answers every path under `path/` (`/emulator/sessions/<id>`) that no route has exactly; counted in the metrics under `path`. */
  prefix?: boolean;
  /**
   * For routes that take a body from anonymous callers: its limit (default: the server's), and a
   * check of the headers alone, made before a byte of the body is read. A refusal is answered at
   * once and the body is never read.
   */
  body?: { limitBytes?: number; refuse?(req: IncomingMessage): HttpError | undefined };
  /**
   * A platform waits for this route's answer and retries a late one (a webhook): while one of its
   * requests is in flight, background work waits (`AckFirst`).
   */
  acknowledges?: boolean;
  handle(req: IncomingMessage, res: ServerResponse, readBody: ReadRequestBody): Promise<void> | void;
}

export interface HttpServerOptions {
  routes: Endpoint[];
  metrics: Metrics;
  logger: Logger;
  bodyLimitBytes?: number;
  /** A body without a byte for this long is closed with 408 (default 30 s). */
  bodyStallMs?: number;
  /** A body behind this pace is closed with 408 (default `MINIMUM_BODY_PACE`: 10 s, then 1 KiB/s). */
  bodyPace?: BodyPace;
  /** Bytes of unverified bodies held at once, across connections (default: `DEFAULT_BODY_BUDGET` on `clock`). */
  budget?: BodyBudget;
  /** Times the stall and the pace of bodies (default: the system's). */
  clock?: Clock;
  /** Counts the requests of acknowledging routes, so background work lets them go first. */
  ackFirst?: AckFirst;
  /** Starts the routes' handlers in turns of the event loop (default: one a turn). */
  turns?: RequestTurns;
}

/** Node's own limits for the time a client may take to send its headers, and its whole request. */
const HEADERS_TIMEOUT_MS = 20_000;
const REQUEST_TIMEOUT_MS = 60_000;

export interface RunningHttpServer {
  server: Server;
  /** `http://host:port` as bound (the real port when 0 was asked for). */
  url: string;
  /** Stops accepting connections, lets in-flight requests finish, closes idle keep-alives. */
  close(): Promise<void>;
}

/**
 * One `node:http` server owns the port and every route (docs/architecture.md §1, `http/`): integrations
 * mount handlers here, never a server of their own. Every request is counted and timed by route.
 * Refusals made on the headers are answered at once; a route's handler starts in its turn
 * (`RequestTurns`: one a turn of the event loop, so connections opened under load are accepted).
 */
export function createHttpServer(options: HttpServerOptions): Server {
  const stallMs = options.bodyStallMs ?? BODY_STALL_MS;
  const clock = options.clock ?? systemClock;
  const budget = options.budget ?? new BodyBudget(DEFAULT_BODY_BUDGET, clock);
  const turns = options.turns ?? new RequestTurns();
  const byPath = new Map<string, Endpoint[]>();
  for (const route of options.routes) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);
  const prefixes = [...new Set(options.routes.filter((route) => route.prefix).map((route) => route.path))];
  // Looked at only when no route has the path exactly: the webhooks' lookup stays one map read.
  const under = (path: string) => prefixes.find((prefix) => path.startsWith(`${prefix}/`));
  const refused = (path: string, status: number, code: string) => options.logger.debug({ route: path, status, code }, 'request refused');

  const server = createServer({ headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, connectionsCheckingInterval: 5_000 }, (req, res) => {
    const started = process.hrtime.bigint();
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const prefix = byPath.has(path) ? undefined : under(path);
    const candidates = prefix === undefined ? byPath.get(path) : byPath.get(prefix)?.filter((candidate) => candidate.prefix);
    const route = candidates?.find((candidate) => candidate.method === req.method);
    const label = candidates ? (prefix ?? path) : 'unmatched';
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      options.metrics.httpRequests.inc({ route: label, method: req.method ?? '?', status: String(res.statusCode) });
      options.metrics.httpDuration.observe({ route: label, method: req.method ?? '?' }, seconds);
    });

    keepAliveOnlyOnceRead(req, res);

    if (!candidates) return sendJson(res, 404, { error: 'not_found', message: `no route ${path}` });
    if (!route) {
      const allowed = candidates.map((candidate) => candidate.method).join(', ');
      return sendJson(res, 405, { error: 'method_not_allowed', message: `${path} accepts ${allowed}` }, { allow: allowed });
    }
    const limit = route.body?.limitBytes ?? options.bodyLimitBytes ?? BODY_LIMIT_BYTES;
    if (declaresTooLarge(req, limit)) {
      refused(path, 413, 'payload_too_large');
      return sendJson(res, 413, { error: 'payload_too_large', message: `request body over ${limit} bytes` });
    }
    const refusal = route.body?.refuse?.(req);
    if (refusal) {
      refused(path, refusal.status, refusal.code);
      answerError(res, refusal);
      return;
    }
    // Counted from the moment its body is complete: a body still arriving (or stalled) needs no CPU,
    // and a stranger's stalled bodies must not slow the work down.
    const acknowledging = (body: Buffer) => {
      if (route.acknowledges && options.ackFirst && !res.destroyed) res.once('close', options.ackFirst.begin());
      return body;
    };
    // A webhook's request waiting for its turn with its body complete holds background work back as it
    // will while answered; one whose body is still arriving stops counting until the body is complete.
    const queued = route.acknowledges ? options.ackFirst?.begin() : undefined;
    if (queued) res.once('close', queued);
    const read = () => {
      if (!req.complete) queued?.();
      return readBody(req, limit, { stallMs, budget, clock, ...(options.bodyPace && { minimumPace: options.bodyPace }) })
        .then(acknowledging)
        .finally(() => queued?.());
    };
    turns.enqueue(() => {
      if (res.destroyed) return;
      Promise.resolve()
        .then(() => handleTraced(route, req, res, () => route.handle(req, res, read)))
        .catch((error: unknown) => {
          // A client that went away mid-request is its own doing: debug, never an error with a stack.
          if (isClientAbort(error)) {
            options.logger.debug({ route: path, code: 'client_aborted' }, 'the client closed the connection before the request was complete');
            if (!res.headersSent) res.destroy();
            return;
          }
          const answered = answerError(res, error);
          if (answered.internal) options.logger.error({ err: error, route: path }, 'request failed');
          else refused(path, answered.status, answered.code);
        });
    });
  });
  // A connection idle past the body stall (a body nobody reads, a request that stopped mid-way) is
  // closed: routes that read a body answer 408 at `stallMs`, this catches everything else just after.
  server.setTimeout(stallMs + 2_000);
  return server;
}

/**
 * Whatever a route answers — JSON, an HTML page, a redirect, a refusal made on the headers, a 408 after
 * part of a body — while the request's body is not read to its end says `Connection: close`, and Node
 * then closes the socket once the answer is out: otherwise Node keeps the connection for the
 * next request and drains the unread body into nothing, and a body that never comes holds the socket
 * and its file descriptor until an idle timeout. A body read to its end restores keep-alive.
 */
function keepAliveOnlyOnceRead(req: IncomingMessage, res: ServerResponse): void {
  if (!bodyUnread(req)) return;
  const keepAlive = res.shouldKeepAlive;
  res.shouldKeepAlive = false;
  req.once('end', () => (res.shouldKeepAlive = keepAlive));
}

/** Listens on `port`/`host` and resolves once bound. */
export async function listen(server: Server, port: number, host: string): Promise<RunningHttpServer> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    server,
    url: `http://${shownHost}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
