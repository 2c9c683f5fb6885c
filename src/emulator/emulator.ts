/**
 * The emulator's front door: one request handler that a host server can mount, and a standalone
 * server around it. /api/v1 requests pass through fault injection, the request log and
 * authentication, in that order, before their route.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { apiEndpoints } from './api-endpoints.js';
import { holdResponse, toProblem, type EmulatorContext } from './context.js';
import { decodeSegment, sendHtml } from './http-util.js';
import { KeyRing, type Visibility } from './keys.js';
import type { Timings } from './plan.js';
import { ProblemError, problemBody, sendProblem } from './problem.js';
import { dispatch, type EmulatorEndpoint } from './router.js';
import { RunEngine } from './run-engine.js';
import { renderIndex, renderNotFound, renderSessionPage } from './session-page.js';
import { testingEndpoints } from './testing-endpoints.js';
import { FaultQueue, RequestLog } from './traffic.js';

export interface EmulatorOptions {
  /** The service's key; its runs are reported as a service account's. */
  apiKey: string;
  /**
   * Who sees a run: `team` (default, today's behaviour) — every key every run; `owner` — only the
   * key that created it (the list leaves the others out; a GET, follow-up or cancel of one is 404).
   */
  visibility?: Visibility;
  /**
   * Whether keys other than `apiKey` are accepted (each is its own creator, reported as a user's
   * personal key) until revoked. Default: true in owner visibility, false in team visibility.
   */
  acceptAnyKey?: boolean;
  /** 0 or undefined = a random free port. */
  port?: number;
  /** Default '127.0.0.1'. */
  host?: string;
  /** Runs move only when driven through /_emulator (or the engine). */
  manual?: boolean;
  /** Defaults: 300, 300, 300, 2000 ms. */
  timings?: Partial<Timings>;
  /** Source of every timestamp; default real time. */
  clock?: { now(): Date };
  /** Base for session links if different from the listen URL. */
  publicUrl?: string;
}

export type EmulatorHandlerOptions = Omit<EmulatorOptions, 'port' | 'host'>;

export interface EmulatorHandler {
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  engine: RunEngine;
  /** The accepted keys; `keys.revoke(key)` makes a key answer 401 from then on. */
  keys: KeyRing;
  /** Stops every run timer and cuts answers held back by delay faults. */
  close(): void;
}

export interface RunningEmulator {
  /** e.g. `http://127.0.0.1:4010` */
  url: string;
  /** The request handler its server runs: a host server may mount it too (its session pages, say). */
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  /** `url + '/api/v1'` */
  baseUrl: string;
  engine: RunEngine;
  /** The accepted keys; `keys.revoke(key)` makes a key answer 401 from then on. */
  keys: KeyRing;
  close(): Promise<void>;
}

const API_PREFIX = '/api/v1';
const TESTING_PREFIX = '/_emulator';

async function handleApiRequest(ctx: EmulatorContext, routes: EmulatorEndpoint[], req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const entry = ctx.requests.record(req.method ?? 'GET', url, ctx.clock.now().toISOString());
  res.on('finish', () => {
    entry.status = res.statusCode;
  });
  res.on('close', () => {
    if (!res.writableFinished) entry.status = 0;
  });
  const fault = ctx.faults.take(req.method ?? 'GET', url.pathname.replace(/^\/api\/v1/, '') || '/');
  if (fault) {
    if (fault.delayMs > 0) await holdResponse(ctx, res, fault.delayMs);
    if (res.destroyed) return;
    if (fault.status === 0) {
      req.socket.destroy();
      return;
    }
    if (fault.status !== undefined) {
      const headers: Record<string, string> = fault.retryAfter !== undefined ? { 'retry-after': fault.retryAfter } : {};
      const init = fault.error !== undefined ? { headers, error: fault.error } : { headers };
      sendProblem(res, new ProblemError(fault.status, fault.detail ?? `emulated fault: ${problemBody(fault.status, '').title}`, init));
      return;
    }
  }
  const caller = ctx.keys.authenticate(req);
  ctx.callers.set(req, caller);
  entry.creator = caller.uid;
  await dispatch(routes, req, res, url.pathname.slice(API_PREFIX.length) || '/', url);
}

function handlePage(ctx: EmulatorContext, req: IncomingMessage, res: ServerResponse, path: string): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    throw new ProblemError(405, `${req.method ?? ''} is not allowed on ${path}; use GET`, { headers: { allow: 'GET' } });
  }
  if (path === '/') {
    sendHtml(res, 200, renderIndex(ctx.engine.list({ limit: 500 }).runs));
    return;
  }
  const sessionId = decodeSegment(path.slice('/sessions/'.length)) ?? '';
  const run = ctx.engine.getBySession(sessionId);
  if (!run) {
    sendHtml(res, 404, renderNotFound(sessionId));
    return;
  }
  sendHtml(res, 200, renderSessionPage(run, ctx.engine.history(run.run_id), ctx.engine.followups(run.run_id)));
}

/**
 * Builds the emulator as a plain `(req, res)` handler so a host server can mount it. Paths are
 * absolute (`/api/v1/…`, `/_emulator/…`, `/sessions/…`, `/`). Without `publicUrl`, session links
 * use the Host header of the first request.
 */
export function createEmulatorHandler(options: EmulatorHandlerOptions): EmulatorHandler {
  const clock = options.clock ?? { now: () => new Date() };
  const visibility = options.visibility ?? 'team';
  const keys = new KeyRing(options.apiKey, options.acceptAnyKey ?? visibility === 'owner');
  const engine = new RunEngine({
    clock,
    creator: keys.service,
    timings: options.timings,
    manual: options.manual,
    publicUrl: options.publicUrl,
  });
  const ctx: EmulatorContext = {
    keys,
    visibility,
    callers: new WeakMap(),
    engine,
    faults: new FaultQueue(),
    requests: new RequestLog(),
    clock,
    delayed: new Set(),
  };
  const api = apiEndpoints(ctx);
  const testing = testingEndpoints(ctx);

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://emulator.invalid');
    if (!engine.hasPublicUrl && req.headers.host) engine.setPublicUrl(`http://${req.headers.host}`);
    const path = url.pathname;
    if (path === API_PREFIX || path.startsWith(`${API_PREFIX}/`)) {
      await handleApiRequest(ctx, api, req, res, url);
    } else if (path.startsWith(`${TESTING_PREFIX}/`)) {
      await dispatch(testing, req, res, path.slice(TESTING_PREFIX.length), url);
    } else if (path === '/' || /^\/sessions\/[^/]+$/.test(path)) {
      handlePage(ctx, req, res, path);
    } else {
      throw new ProblemError(404, `no resource at ${path}`);
    }
  };

  return {
    engine,
    keys,
    handler: (req, res) => {
      handle(req, res).catch((error: unknown) => {
        if (!res.destroyed) sendProblem(res, toProblem(error));
      });
    },
    close: () => {
      engine.close();
      for (const held of [...ctx.delayed]) {
        held.res.destroy();
        held.done();
      }
    },
  };
}

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

/** Starts the emulator on its own HTTP server; `close()` stops timers, connections and the server. */
export async function startEmulator(options: EmulatorOptions): Promise<RunningEmulator> {
  const host = options.host ?? '127.0.0.1';
  const emulator = createEmulatorHandler(options);
  const server = createServer(emulator.handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${urlHost(host)}:${port}`;
  if (options.publicUrl === undefined) emulator.engine.setPublicUrl(url);
  let closing: Promise<void> | undefined;
  return {
    url,
    handler: emulator.handler,
    baseUrl: `${url}${API_PREFIX}`,
    engine: emulator.engine,
    keys: emulator.keys,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        emulator.close();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
