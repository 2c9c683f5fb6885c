import { afterEach, describe, expect, it } from 'vitest';
import { CapturingLogger } from '../../test/core/capturing-logger.js';
import { rawRequest, within, type RawRequest } from '../../test/helpers/raw-http.js';
import { TestClock } from '../core/ports/clock.js';
import { BodyBudget, type BodyBudgetLimits } from './body-budget.js';
import type { BodyPace } from './body-pace.js';
import { createMetrics } from './metrics.js';
import { createHttpServer, listen, type Endpoint, type RunningHttpServer } from './server.js';

/*
 * Bodies that trickle in (a byte every few seconds, each keeping the stall away) against the server,
 * on a test clock: they fall behind the minimum pace and are answered 408.
 */

let running: RunningHttpServer | undefined;
const opened: RawRequest[] = [];
afterEach(async () => {
  for (const request of opened.splice(0)) request.socket.destroy();
  running?.server.closeAllConnections();
  await running?.close();
  running = undefined;
});

const KIB = 1024;
/** 16 KiB in all, 4 KiB of it only for bodies up to 1 KiB. */
const LIMITS: BodyBudgetLimits = { totalBytes: 16 * KIB, smallBodyBytes: KIB, reservedForSmallBytes: 4 * KIB };

async function start(options: { limits?: Partial<BodyBudgetLimits>; bodyPace?: BodyPace } = {}) {
  const clock = new TestClock();
  const budget = new BodyBudget({ ...LIMITS, ...options.limits });
  const logger = new CapturingLogger();
  const echo: Endpoint = {
    method: 'POST',
    path: '/echo',
    handle: async (_req, res, readBody) => {
      const body = await readBody();
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`${body.length}`);
    },
  };
  const server = createHttpServer({
    routes: [echo],
    metrics: createMetrics({ defaultMetrics: false }),
    logger,
    clock,
    budget,
    ...(options.bodyPace && { bodyPace: options.bodyPace }),
  });
  running = await listen(server, 0, '127.0.0.1');
  return { url: running.url, clock, budget, logger };
}

/** A body that declares `length` and sends `sent` bytes of it; kept open. */
function trickle(url: string, length: number, sent: number): RawRequest {
  const request = rawRequest(url, 'POST', '/echo', { 'content-length': length }, 'x'.repeat(sent));
  opened.push(request);
  return request;
}

const errorCode = async (request: RawRequest) => (JSON.parse(await request.answerBody) as { error?: string }).error;

describe('the minimum pace', () => {
  it('a body that keeps the stall away but falls behind the pace is answered 408, its connection closed and its budget given back', async () => {
    const { url, clock, budget, logger } = await start({ bodyPace: { graceMs: 1_000, bytesPerSecond: 1_000 } });
    // 2,000 bytes buy 2 s beyond the first second: behind the pace after 3 s, the stall (30 s) far off.
    const request = trickle(url, 4 * KIB, 2_000);
    await expect.poll(() => budget.held).toBe(4 * KIB);
    await clock.advance(2_900);
    expect(budget.held).toBe(4 * KIB);
    await clock.advance(200);
    expect(await within(request.status, 5_000)).toBe(408);
    expect(budget.held).toBe(0);
    expect(await within(request.closed, 5_000)).toBeDefined();
    expect(await errorCode(request)).toBe('body_too_slow');
    expect(logger.at('error')).toEqual([]);
  });

  it('the service’s own pace: the first bytes within 10 s, then 1 KiB/s', async () => {
    const { url, clock, budget } = await start();
    const request = trickle(url, 4 * KIB, 1);
    await expect.poll(() => budget.held).toBe(4 * KIB);
    await clock.advance(9_900);
    expect(budget.held).toBe(4 * KIB);
    await clock.advance(200);
    expect(await within(request.status, 5_000)).toBe(408);
  });
});
