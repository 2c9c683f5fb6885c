import { afterEach, describe, expect, it } from 'vitest';
import { CapturingLogger } from '../../test/core/capturing-logger.js';
import { rawRequest, within } from '../../test/helpers/raw-http.js';
import { BodyBudget, type BodyBudgetLimits } from './body-budget.js';
import { HttpError } from './http-error.js';
import { createMetrics } from './metrics.js';
import { createHttpServer, listen, type RunningHttpServer, type Endpoint } from './server.js';

/*
 * How the server treats request bodies from anonymous callers: refused on the headers before a byte
 * is read, held against a budget shared by every connection, closed when stalled, and a client that
 * goes away mid-body logged as the client's doing.
 */

let running: RunningHttpServer | undefined;
afterEach(async () => {
  running?.server.closeAllConnections();
  await running?.close();
  running = undefined;
});

const KIB = 1024;
/**
 * 16 KiB in all, 4 KiB of it only for bodies up to 1 KiB. Every test's senders are one source
 * (127.0.0.1), whose share is all of it, and no body gives its room to another however slow it is
 * (server-trickles.test.ts tests those rules): what is held stays held while a test looks.
 */
const budgetLimits: BodyBudgetLimits = {
  totalBytes: 16 * KIB,
  smallBodyBytes: KIB,
  reservedForSmallBytes: 4 * KIB,
  sourceShare: 1,
  healthyPace: { graceMs: Number.POSITIVE_INFINITY, bytesPerSecond: 1 },
};

async function start(options: { stallMs?: number; budget?: BodyBudget; logger?: CapturingLogger } = {}) {
  const handled: string[] = [];
  const echo: Endpoint = {
    method: 'POST',
    path: '/echo',
    body: { refuse: (req) => (req.headers['x-token'] === 'ok' ? undefined : new HttpError(401, 'invalid_signature', 'x-token is missing')) },
    handle: async (_req, res, readBody) => {
      handled.push('echo');
      const body = await readBody();
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`${body.length}`);
    },
  };
  // As the console's pages and redirects do: an answer written by hand, without reading the body.
  const page: Endpoint = {
    method: 'POST',
    path: '/page',
    handle: (_req, res) => {
      res.writeHead(403, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<p>Admins only</p>');
    },
  };
  const logger = options.logger ?? new CapturingLogger();
  const server = createHttpServer({
    routes: [echo, page],
    metrics: createMetrics({ defaultMetrics: false }),
    logger,
    bodyLimitBytes: 64 * KIB,
    ...(options.stallMs && { bodyStallMs: options.stallMs }),
    budget: options.budget ?? new BodyBudget(budgetLimits),
  });
  running = await listen(server, 0, '127.0.0.1');
  return { url: running.url, handled, logger };
}

const post = (url: string, length: number, body?: Buffer | string, headers: Record<string, string> = { 'x-token': 'ok' }) =>
  rawRequest(url, 'POST', '/echo', { 'content-length': length, ...headers }, body);

describe('bodies from anonymous callers', () => {
  it('a refusal by the headers is answered before the body is sent, the handler never runs, the connection closes', async () => {
    const { url, handled, logger } = await start();
    const request = post(url, 8 * KIB, undefined, {});
    expect(await within(request.status, 2_000)).toBe(401);
    expect(await within(request.closed, 2_000)).toBeDefined();
    expect(handled).toEqual([]);
    expect(logger.lines.map((line) => [line.level, line.fields['code']])).toEqual([['debug', 'invalid_signature']]);
  });

  it('bodies held against the budget: a big one that does not fit gets 503 with Retry-After at once, a small one still gets through', async () => {
    const { url } = await start();
    // Three stalled 4 KiB bodies hold 12 KiB: all that big bodies may use.
    const held = [post(url, 4 * KIB, 'x'.repeat(100)), post(url, 4 * KIB, 'x'.repeat(100)), post(url, 4 * KIB, 'x'.repeat(100))];
    await Promise.all(held.map((request) => request.write('')));
    const refused = post(url, 2 * KIB);
    expect(await within(refused.status, 2_000)).toBe(503);
    expect((await refused.headers)['retry-after']).toBe('1');
    const small = await fetch(`${url}/echo`, { method: 'POST', headers: { 'x-token': 'ok' }, body: 'y'.repeat(900) });
    expect(small.status).toBe(200);
    expect(await small.text()).toBe('900');
    for (const request of held) request.socket.destroy();
  });

  it('the budget is given back when a body is complete, fails or is abandoned', async () => {
    const budget = new BodyBudget(budgetLimits);
    const { url } = await start({ budget });
    const complete = await fetch(`${url}/echo`, { method: 'POST', headers: { 'x-token': 'ok' }, body: 'z'.repeat(4 * KIB) });
    expect(complete.status).toBe(200);
    const abandoned = post(url, 4 * KIB, 'x'.repeat(10));
    await abandoned.write('');
    abandoned.socket.destroy();
    await abandoned.closed;
    const tooBig = await fetch(`${url}/echo`, { method: 'POST', headers: { 'x-token': 'ok' }, body: 'z'.repeat(65 * KIB) });
    expect(tooBig.status).toBe(413);
    await expect.poll(() => budget.held).toBe(0);
  });

  it('a chunked body grows its hold as it arrives and gets 503 when the budget cannot hold more', async () => {
    const { url } = await start();
    const request = rawRequest(url, 'POST', '/echo', { 'x-token': 'ok', 'transfer-encoding': 'chunked' });
    const chunk = 'c'.repeat(4 * KIB);
    for (let sent = 0; sent < 4; sent++) await request.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    expect(await within(request.status, 2_000)).toBe(503);
  });

  it('a body that stalls is answered 408 and its connection closed', async () => {
    const { url, logger } = await start({ stallMs: 300 });
    const request = post(url, 4 * KIB, 'x'.repeat(100));
    expect(await within(request.status, 5_000)).toBe(408);
    expect(await within(request.closed, 5_000)).toBeDefined();
    expect(logger.at('error')).toEqual([]);
  });

  it('an answer written by the route before the body is read (an HTML refusal) closes the connection too', async () => {
    const { url } = await start();
    const request = rawRequest(url, 'POST', '/page', { 'content-length': 4 * KIB }, 'x'.repeat(100));
    expect(await within(request.status, 2_000)).toBe(403);
    expect((await request.headers)['connection']).toBe('close');
    // Without the close, Node keeps the socket for a next request and waits for the rest of the body.
    expect(await within(request.closed, 2_000)).toBeDefined();
  });

  it('a body read to its end keeps the connection alive for the next request', async () => {
    const { url } = await start();
    const request = rawRequest(url, 'POST', '/echo', { 'x-token': 'ok', 'content-length': 5 }, 'hello');
    expect(await within(request.status, 2_000)).toBe(200);
    expect((await request.headers)['connection']).toBe('keep-alive');
    request.socket.destroy();
  });

  it('a body the client aborts is logged at debug as the client closing, never at error', async () => {
    const logger = new CapturingLogger();
    const { url } = await start({ logger });
    const request = post(url, 4 * KIB, 'x'.repeat(100));
    await request.write('');
    request.socket.destroy();
    const line = await waitFor(() => logger.lines.find((entry) => entry.fields['route'] === '/echo'));
    expect([line.level, line.fields['code']]).toEqual(['debug', 'client_aborted']);
    expect(logger.at('error')).toEqual([]);
  });
});

async function waitFor<T>(find: () => T | undefined): Promise<T> {
  await expect.poll(find, { timeout: 5_000 }).toBeDefined();
  return find()!;
}
