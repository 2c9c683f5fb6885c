import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { TestClock } from '../core/ports/clock.js';
import { silentLogger } from '../core/ports/logger.js';
import { startLoop, type RunningLoop } from '../core/loop.js';
import { AckFirst } from './ack-first.js';
import { RequestTurns } from './request-turns.js';
import { sendJson } from './http-error.js';
import { createMetrics } from './metrics.js';
import { createHttpServer, listen, type Endpoint, type RunningHttpServer } from './server.js';

const SPACING_MS = 10;
let running: RunningHttpServer | undefined;
const loops: RunningLoop[] = [];
afterEach(async () => {
  await Promise.all(loops.splice(0).map((loop) => loop.stop()));
  await running?.close();
  running = undefined;
});

/** A webhook route that answers only when the test says so, and a plain route beside it. */
async function start(gate: AckFirst, turns?: RequestTurns) {
  const held: Array<() => void> = [];
  const webhook: Endpoint = {
    method: 'POST',
    path: '/hook',
    acknowledges: true,
    handle: async (_req, res, readBody) => {
      await readBody();
      held.push(() => sendJson(res, 200, { ok: true }));
    },
  };
  const plain: Endpoint = {
    method: 'POST',
    path: '/plain',
    handle: (_req, res) => {
      held.push(() => sendJson(res, 200, { ok: true }));
    },
  };
  const server = createHttpServer({
    routes: [webhook, plain],
    metrics: createMetrics({ defaultMetrics: false }),
    logger: silentLogger,
    ackFirst: gate,
    ...(turns && { turns }),
  });
  running = await listen(server, 0, '127.0.0.1');
  return { url: running.url, held };
}

/** Posts `body`; with `stall`, declares more than it sends, so the body never completes. */
function post(url: string, { body = '{}', stall = false } = {}): { answered: Promise<number>; abort: () => void } {
  const req = request(url, { method: 'POST', headers: { 'content-length': String(body.length + (stall ? 100 : 0)) } });
  const answered = new Promise<number>((resolve, reject) => {
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
  });
  if (stall) req.write(body);
  else req.end(body);
  return { answered, abort: () => req.destroy() };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await settle();
  expect(check()).toBe(true);
};

/** A loop whose every pass is counted; it asks the gate first. */
function countPasses(clock: TestClock, gate: AckFirst) {
  const passes = { count: 0 };
  const loop = startLoop({
    name: 'test',
    clock,
    logger: silentLogger,
    idleMs: 60_000,
    gate,
    work: () => {
      passes.count++;
      return Promise.resolve(false);
    },
  });
  loops.push(loop);
  return passes;
}

describe('AckFirst: background passes wait while webhooks are being acknowledged', () => {
  it('lets a pass go at once when nothing is in flight', async () => {
    const clock = new TestClock();
    const passes = countPasses(clock, new AckFirst(clock, SPACING_MS));
    await until(() => passes.count === 1);
  });

  it('holds a pass until the webhook is answered, then lets it go', async () => {
    const clock = new TestClock();
    const gate = new AckFirst(clock, SPACING_MS);
    const { url, held } = await start(gate);
    const sent = post(`${url}/hook`);
    await until(() => held.length === 1 && gate.waiting === 1);
    const passes = countPasses(clock, gate);
    await settle();
    expect(passes.count).toBe(0);
    held[0]?.();
    expect(await sent.answered).toBe(200);
    await until(() => passes.count === 1);
    expect(gate.waiting).toBe(0);
  });

  it('lets held passes go one at a time, so a flood never starves the work', async () => {
    const clock = new TestClock();
    const gate = new AckFirst(clock, SPACING_MS);
    const { url, held } = await start(gate);
    post(`${url}/hook`);
    await until(() => gate.waiting === 1);
    const first = countPasses(clock, gate);
    const second = countPasses(clock, gate);
    await settle();
    expect([first.count, second.count]).toEqual([0, 0]);
    await clock.advance(SPACING_MS);
    await until(() => first.count + second.count === 1);
    await clock.advance(SPACING_MS);
    await until(() => first.count + second.count === 2);
    expect([first.count, second.count]).toEqual([1, 1]);
    expect(gate.waiting).toBe(1);
    held[0]?.();
  });

  it('lets held passes go one a turn once nothing is in flight, and holds the rest again when a webhook arrives', async () => {
    const clock = new TestClock();
    const gate = new AckFirst(clock, SPACING_MS);
    const answered = gate.begin();
    const gone: string[] = [];
    for (const name of ['a', 'b', 'c', 'd']) void gate.clear().then(() => gone.push(name));
    answered();
    await Promise.resolve();
    // The first at once; each next one a turn later, behind whatever the turn brings in.
    expect(gone).toEqual(['a']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(gone).toEqual(['a', 'b']);
    // A pass asking now queues behind the held ones rather than overtaking them.
    void gate.clear().then(() => gone.push('late'));
    const another = gate.begin();
    for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(gone).toEqual(['a', 'b']);
    await clock.advance(SPACING_MS);
    expect(gone).toEqual(['a', 'b', 'c']);
    another();
    for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(gone).toEqual(['a', 'b', 'c', 'd', 'late']);
    // Nothing held, nothing in flight: a pass goes at once again.
    let now = false;
    await gate.clear().then(() => (now = true));
    expect(now).toBe(true);
  });

  it('counts a webhook waiting for its turn with its body complete, then until it is answered', async () => {
    const clock = new TestClock();
    const gate = new AckFirst(clock, SPACING_MS);
    const turnsDue: Array<() => void> = [];
    const turns = new RequestTurns((run) => void turnsDue.push(run));
    const { url, held } = await start(gate, turns);
    const sent = post(`${url}/hook`);
    await until(() => turns.waiting === 1 && gate.waiting === 1);
    const passes = countPasses(clock, gate);
    await settle();
    expect(passes.count).toBe(0);
    turnsDue.shift()?.();
    await until(() => held.length === 1);
    expect(gate.waiting).toBe(1);
    held[0]?.();
    expect(await sent.answered).toBe(200);
    await until(() => passes.count === 1);
    expect(gate.waiting).toBe(0);
  });

  it('counts a client that went away as answered', async () => {
    const clock = new TestClock();
    const gate = new AckFirst(clock, SPACING_MS);
    const { url } = await start(gate);
    const sent = post(`${url}/hook`);
    sent.answered.catch(() => {});
    await until(() => gate.waiting === 1);
    sent.abort();
    await until(() => gate.waiting === 0);
  });

  it('does not count a body still arriving: a stranger’s stalled bodies do not slow the work', async () => {
    const clock = new TestClock();
    const gate = new AckFirst(clock, SPACING_MS);
    const { url } = await start(gate);
    const sent = post(`${url}/hook`, { stall: true });
    sent.answered.catch(() => {});
    const passes = countPasses(clock, gate);
    await until(() => passes.count === 1);
    expect(gate.waiting).toBe(0);
    sent.abort();
  });

  it('does not count routes no platform waits on', async () => {
    const clock = new TestClock();
    const gate = new AckFirst(clock, SPACING_MS);
    const { url, held } = await start(gate);
    post(`${url}/plain`);
    await until(() => held.length === 1);
    expect(gate.waiting).toBe(0);
    const passes = countPasses(clock, gate);
    await until(() => passes.count === 1);
    held[0]?.();
  });
});
