import { afterEach, describe, expect, it } from 'vitest';
import { ROOT, runTs } from '../../test/helpers/spawn-cli.js';
import { silentLogger } from '../core/ports/logger.js';
import { sendJson } from './http-error.js';
import { createMetrics } from './metrics.js';
import { createHttpServer, listen, type Endpoint, type RunningHttpServer } from './server.js';

/*
 * Connections opened while others keep the server busy. libuv accepts one
 * connection a turn of the event loop; a server that handled every ready request within one turn
 * made its turns as long as the load, and 40 connections opened under a flood of 50 waited for 40
 * such turns: about 2,000 answers to the busy connections (seconds) before the last was served.
 */

let running: RunningHttpServer | undefined;
afterEach(async () => {
  running?.server.closeAllConnections();
  await running?.close();
  running = undefined;
});

/** Busy for about a millisecond of CPU, as verifying, parsing and storing a webhook is. */
function burn(): void {
  const until = performance.now() + 1;
  while (performance.now() < until);
}

const work: Endpoint = {
  method: 'POST',
  path: '/work',
  acknowledges: true,
  handle: async (_req, res, readBody) => {
    await readBody();
    burn();
    sendJson(res, 200, { ok: true });
  },
};

async function flood(url: string, busy: number, fresh: number): Promise<{ busyAnswersMeanwhile: number; freshAnswered: number }> {
  const run = await runTs(`${ROOT}/test/helpers/keep-alive-flood.ts`, [url, String(busy), String(fresh)]);
  if (run.code !== 0) throw new Error(`the flood client exited with ${run.code}: ${run.stderr}`);
  return JSON.parse(run.stdout) as { busyAnswersMeanwhile: number; freshAnswered: number };
}

describe('connections opened under load', () => {
  it('40 new connections are served within a few rounds of 50 busy keep-alive connections', async () => {
    running = await listen(createHttpServer({ routes: [work], metrics: createMetrics(), logger: silentLogger }), 0, '127.0.0.1');
    const { busyAnswersMeanwhile, freshAnswered } = await flood(`${running.url}/work`, 50, 40);
    expect(freshAnswered).toBe(40);
    // Each busy connection answered at most four more times while the new ones waited (before: ~40).
    expect(busyAnswersMeanwhile).toBeLessThan(50 * 4);
  });
});
