import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../core/ports/logger.js';
import { healthEndpoints, notConfiguredEndpoint, type ReadinessCheck } from './health-endpoints.js';
import { HttpError } from './http-error.js';
import { createMetrics } from './metrics.js';
import { readBody } from './read-body.js';
import { createHttpServer, listen, type RunningHttpServer, type Endpoint } from './server.js';

let running: RunningHttpServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function start(routes: Endpoint[], checks: ReadinessCheck[] = []) {
  const metrics = createMetrics({ defaultMetrics: false });
  const server = createHttpServer({
    routes: [...healthEndpoints({ checks, metrics, logger: silentLogger }), ...routes],
    metrics,
    logger: silentLogger,
    bodyLimitBytes: 1024,
  });
  running = await listen(server, 0, '127.0.0.1');
  return { url: running.url, metrics };
}

const echo: Endpoint = {
  method: 'POST',
  path: '/echo',
  handle: async (req, res) => {
    const body = await readBody(req, 1024);
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(body);
  },
};

/** Sends a chunked body (no content-length), which only the streaming limit can catch. */
function postChunked(url: string, chunks: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'transfer-encoding': 'chunked' } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', (error) =>
      (error as NodeJS.ErrnoException).code === 'EPIPE' || (error as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(error),
    );
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

describe('the HTTP server', () => {
  it('a prefix route answers the paths under it, counted under its own path; other paths stay 404', async () => {
    const pages: Endpoint = { method: 'GET', path: '/pages', prefix: true, handle: (req, res) => void res.end(req.url) };
    const { url, metrics } = await start([pages]);
    expect(await (await fetch(`${url}/pages/one?x=1`)).text()).toBe('/pages/one?x=1');
    expect(await (await fetch(`${url}/pages/a/b`)).text()).toBe('/pages/a/b');
    for (const path of ['/pagesx', '/pages-other/one', '/other/pages/one']) expect((await fetch(`${url}${path}`)).status).toBe(404);
    expect((await fetch(`${url}/pages/one`, { method: 'POST' })).status).toBe(405);
    const counted = await metrics.registry.getSingleMetricAsString('agent_bridge_http_requests_total');
    expect(counted).toContain('route="/pages",method="GET",status="200"} 2');
    expect(counted).not.toContain('/pages/one');
  });

  it('answers /healthz', async () => {
    const { url } = await start([]);
    const response = await fetch(`${url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('/readyz is 200 when every check passes and 503 naming the failing one otherwise, without its reason', async () => {
    const { url } = await start(
      [],
      [
        { name: 'database', check: async () => {} },
        { name: 'agent_api', check: () => Promise.reject(new Error('could not reach the run API at 10.0.0.7')) },
      ],
    );
    const response = await fetch(`${url}/readyz`);
    expect(response.status).toBe(503);
    // Anonymous callers learn which check fails, not why (the reason goes to the log).
    expect(await response.json()).toEqual({ status: 'not_ready', checks: { database: 'ok', agent_api: 'fail' } });
  });

  it('/readyz is 200 with every check ok', async () => {
    const { url } = await start([], [{ name: 'database', check: async () => {} }]);
    const response = await fetch(`${url}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ready', checks: { database: 'ok' } });
  });

  it('/metrics counts requests by route and status in Prometheus text', async () => {
    const { url } = await start([]);
    await fetch(`${url}/healthz`);
    await fetch(`${url}/nowhere`);
    const response = await fetch(`${url}/metrics`);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await response.text();
    expect(text).toContain('agent_bridge_http_requests_total{route="/healthz",method="GET",status="200"} 1');
    expect(text).toContain('agent_bridge_http_requests_total{route="unmatched",method="GET",status="404"} 1');
    expect(text).toMatch(/agent_bridge_http_request_duration_seconds_count\{route="\/healthz",method="GET"\} 1/);
  });

  it.each([
    ['unknown path', 'GET', '/nope', 404, 'not_found'],
    ['wrong method', 'POST', '/healthz', 405, 'method_not_allowed'],
    ['integration not configured', 'POST', '/slack/events', 404, 'not_configured'],
  ])('%s → %i', async (_what, method, path, status, code) => {
    const { url } = await start([notConfiguredEndpoint('/slack/events', 'Slack', 'set SLACK_BOT_TOKEN')]);
    const response = await fetch(`${url}${path}`, { method });
    expect(response.status).toBe(status);
    expect(((await response.json()) as { error: string }).error).toBe(code);
  });

  it('a body over the limit is 413, by declared length and while streaming', async () => {
    const { url } = await start([echo]);
    expect((await fetch(`${url}/echo`, { method: 'POST', body: 'x'.repeat(1025) })).status).toBe(413);
    expect(await postChunked(`${url}/echo`, ['x'.repeat(600), 'y'.repeat(600)])).toBe(413);
    const ok = await fetch(`${url}/echo`, { method: 'POST', body: 'hello' });
    expect(await ok.text()).toBe('hello');
  });

  it('maps an HttpError to its answer and anything else to a 500 that reveals nothing', async () => {
    const { url } = await start([
      {
        method: 'GET',
        path: '/bad',
        handle: () => {
          throw new HttpError(400, 'malformed', 'body is not JSON');
        },
      },
      {
        method: 'GET',
        path: '/bug',
        handle: () => {
          throw new Error('secret internal detail');
        },
      },
    ]);
    const bad = await fetch(`${url}/bad`);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: 'malformed', message: 'body is not JSON' });
    const bug = await fetch(`${url}/bug`);
    expect(bug.status).toBe(500);
    expect(await bug.text()).not.toContain('secret internal detail');
  });
});
