import { afterEach, describe, expect, it } from 'vitest';
import { CapturingLogger } from '../../test/core/capturing-logger.js';
import { rawRequest, within, type RawRequest } from '../../test/helpers/raw-http.js';
import { TestClock } from '../core/ports/clock.js';
import { BodyBudget, type BodyBudgetLimits } from './body-budget.js';
import { HEALTHY_BODY_PACE, type BodyPace } from './body-pace.js';
import { createMetrics } from './metrics.js';
import { createHttpServer, listen, type Endpoint, type RunningHttpServer } from './server.js';

/*
 * Bodies that trickle in (a byte every few seconds, each keeping the stall away) against the server,
 * on a test clock: they fall behind the minimum pace and are answered 408; under pressure they give
 * their room to bodies that arrive fast; one sender holds only its share of the budget.
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
/** 16 KiB in all, 4 KiB of it only for bodies up to 1 KiB, the service's healthy pace. */
const LIMITS: BodyBudgetLimits = { totalBytes: 16 * KIB, smallBodyBytes: KIB, reservedForSmallBytes: 4 * KIB, sourceShare: 1, healthyPace: HEALTHY_BODY_PACE };

async function start(options: { limits?: Partial<BodyBudgetLimits>; bodyPace?: BodyPace } = {}) {
  const clock = new TestClock();
  const budget = new BodyBudget({ ...LIMITS, ...options.limits }, clock);
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

/** A body that declares `length` and sends `sent` bytes of it, from `localAddress` when given; kept open. */
function trickle(url: string, length: number, sent: number, headers: Record<string, string> = {}, localAddress?: string): RawRequest {
  const request = rawRequest(url, 'POST', '/echo', { 'content-length': length, ...headers }, 'x'.repeat(sent), { ...(localAddress && { localAddress }) });
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

describe('a body that arrives fast finds room while trickles fill the budget', () => {
  /** Fills the 16 KiB with a body of 4 KiB trickling and twelve of 1 KiB: each sends a byte, then nothing. */
  async function filled(url: string, budget: BodyBudget) {
    const big = trickle(url, 4 * KIB, 1);
    await expect.poll(() => budget.held).toBe(4 * KIB);
    const trickles = [big, ...Array.from({ length: 12 }, () => trickle(url, KIB, 1))];
    await expect.poll(() => budget.held).toBe(16 * KIB);
    return trickles;
  }

  it('a small body complete when read is taken in at once, whatever the budget holds', async () => {
    const { url, budget } = await start();
    await filled(url, budget);
    const genuine = await fetch(`${url}/echo`, { method: 'POST', body: 'g'.repeat(900) });
    expect(genuine.status).toBe(200);
    expect(await genuine.text()).toBe('900');
  });

  it('one still arriving takes the room of the trickle most behind the healthy pace, which gets 503 with Retry-After', async () => {
    const { url, clock, budget, logger } = await start();
    const trickles = await filled(url, budget);
    // Past their first second, trickles are behind 64 KiB/s.
    await clock.advance(2_000);
    const genuine = trickle(url, 900, 500);
    await expect.poll(() => trickles.filter((request) => request.socket.closed).length).toBeGreaterThanOrEqual(1);
    await genuine.write('g'.repeat(400));
    expect(await within(genuine.status, 5_000)).toBe(200);
    const evicted = trickles.filter((request) => request.socket.closed);
    expect(evicted).toHaveLength(1);
    expect(await within(evicted[0]!.status, 5_000)).toBe(503);
    expect((await evicted[0]!.headers)['retry-after']).toBe('1');
    expect(await errorCode(evicted[0]!)).toBe('body_evicted');
    expect(logger.at('error')).toEqual([]);
  });

  it('trickles within their first second keep their room: a body still arriving gets 503 busy', async () => {
    const { url, budget } = await start();
    await filled(url, budget);
    const late = trickle(url, 900, 500);
    expect(await within(late.status, 5_000)).toBe(503);
    expect(await errorCode(late)).toBe('busy');
  });
});

describe('one source, its share', () => {
  it('one address holds at most its share whatever X-Forwarded-For says; another address still finds room', async () => {
    // A quarter of 16 KiB: 4 KiB, of which the last KiB only for bodies up to 1 KiB.
    const { url, budget } = await start({ limits: { sourceShare: 1 / 4 } });
    const held = [trickle(url, 3 * KIB, 1, {}, '127.0.0.2')];
    await expect.poll(() => budget.heldBy('127.0.0.2')).toBe(3 * KIB);
    const forged = trickle(url, 2 * KIB, 1, { 'x-forwarded-for': '198.51.100.9' }, '127.0.0.2');
    expect(await within(forged.status, 5_000)).toBe(503);
    held.push(trickle(url, KIB, 1, {}, '127.0.0.2'));
    await expect.poll(() => budget.heldBy('127.0.0.2')).toBe(4 * KIB);
    const small = trickle(url, KIB, 1, {}, '127.0.0.2');
    expect(await within(small.status, 5_000)).toBe(503);
    const other = trickle(url, 3 * KIB, 1, {}, '127.0.0.3');
    await expect.poll(() => budget.heldBy('127.0.0.3')).toBe(3 * KIB);
    expect(other.socket.closed).toBe(false);
    expect(held.every((request) => !request.socket.closed)).toBe(true);
  });
});
