import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../core/logger.js';
import { answerError, sendJson } from './http-error.js';
import type { Metrics } from './metrics.js';
import { BODY_LIMIT_BYTES, declaresTooLarge } from './read-body.js';

/** A route of the one HTTP server. Handlers get the unread request: some need the raw body. */
export interface Route {
  method: 'GET' | 'POST';
  path: string;
  handle(req: IncomingMessage, res: ServerResponse): Promise<void> | void;
}

export interface HttpServerOptions {
  routes: Route[];
  metrics: Metrics;
  logger: Logger;
  bodyLimitBytes?: number;
}

export interface RunningHttpServer {
  server: Server;
  /** `http://host:port` as bound (the real port when 0 was asked for). */
  url: string;
  /** Stops accepting connections, lets in-flight requests finish, closes idle keep-alives. */
  close(): Promise<void>;
}

/**
 * One `node:http` server owns the port and every route (platform-facts "Slack Bolt 5"): integrations
 * mount handlers here, never a server of their own. Every request is counted and timed by route.
 */
export function createHttpServer(options: HttpServerOptions): Server {
  const limit = options.bodyLimitBytes ?? BODY_LIMIT_BYTES;
  const byPath = new Map<string, Route[]>();
  for (const route of options.routes) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);

  return createServer((req, res) => {
    const started = process.hrtime.bigint();
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const candidates = byPath.get(path);
    const route = candidates?.find((candidate) => candidate.method === req.method);
    const label = candidates ? path : 'unmatched';
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      options.metrics.httpRequests.inc({ route: label, method: req.method ?? '?', status: String(res.statusCode) });
      options.metrics.httpDuration.observe({ route: label, method: req.method ?? '?' }, seconds);
    });

    if (!candidates) return sendJson(res, 404, { error: 'not_found', message: `no route ${path}` });
    if (!route) {
      const allowed = candidates.map((candidate) => candidate.method).join(', ');
      return sendJson(res, 405, { error: 'method_not_allowed', message: `${path} accepts ${allowed}` }, { allow: allowed });
    }
    if (declaresTooLarge(req, limit)) {
      // Close the connection: the client may still be sending a body we will not read.
      res.setHeader('connection', 'close');
      return sendJson(res, 413, { error: 'payload_too_large', message: `request body over ${limit} bytes` });
    }
    Promise.resolve()
      .then(() => route.handle(req, res))
      .catch((error: unknown) => {
        const answered = answerError(res, error);
        if (answered.internal) options.logger.error({ err: error, route: path }, 'request failed');
      });
  });
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
