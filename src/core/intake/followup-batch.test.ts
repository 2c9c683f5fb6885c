import { describe, expect, it } from 'vitest';
import { useIntakeWorld } from '../../../test/core/intake-harness.js';
import { CapturingLogger } from '../../../test/core/capturing-logger.js';
import { AgentApiError, type AgentRuns } from '../ports/agent-runs.js';
import type { TriggerInput } from '../ports/triggers.js';
import { IntakeService } from './intake-service.js';
import { IntakeWorker } from './intake-worker.js';
import type { RoutingTable } from './routing.js';
import { testSurfaces } from '../../../test/helpers/surfaces.js';

/*
 * followups: all with a window (core/intake/followup-batch.ts): a burst of replies reaches the run as
 * one follow-up, in order, each acknowledged, none lost and none twice — also across a failed call
 * and a crashed worker. The clock is a test clock: nothing here depends on how fast the machine is.
 */

const API_KEY = 'followup-batch-key';
const ANCHOR = 'slack:C1:1700.1';
const WINDOW = 2_000;
const routing: RoutingTable = { defaults: { config: { environment_id: 'env_main' } }, schedules: {} };

const world = useIntakeWorld(API_KEY, { resetEach: true });

const intake = (window = WINDOW) => new IntakeService({ store: world.store, clock: world.clock, followupWindows: { slack: window } });
function worker(options: { owner?: string; runs?: AgentRuns; window?: number } = {}) {
  return new IntakeWorker({
    store: world.store,
    runs: options.runs ?? world.client,
    clock: world.clock,
    logger: new CapturingLogger(),
    routing,
    surfaces: testSurfaces(),
    owner: options.owner ?? 'worker-1',
    options: { retryWindowMs: 15 * 60_000, leaseMs: 30_000 },
    random: () => 0.5,
    followupWindows: { slack: options.window ?? WINDOW },
  });
}

const start: TriggerInput = {
  kind: 'start',
  key: 'Start',
  source: 'slack',
  anchor: ANCHOR,
  payload: { prompt: 'Refactor the importer', title: 'Refactor the importer', origin: { source: 'slack', channel: 'C1' }, destinations: [ANCHOR] },
};
const reply = (key: string, who = 'U1'): TriggerInput => ({
  kind: 'followup',
  key,
  source: 'slack',
  anchor: ANCHOR,
  payload: { message: `text of ${key}`, requester: { platform: 'slack', id: who }, reference: { channel: 'C1', ts: key } },
});
const stop: TriggerInput = { kind: 'cancel', key: 'Stop', source: 'slack', anchor: ANCHOR, payload: {} };

/** The run started by `start`, with the service and worker given. */
async function aRun(service: IntakeService, work: IntakeWorker): Promise<string> {
  await service.submit(start);
  await work.drain();
  const runId = await world.store.anchors.currentRun(ANCHOR);
  expect(runId).toBeDefined();
  return runId as string;
}

/** Submits replies `every` ms apart on the test clock. */
async function replies(service: IntakeService, keys: string[], every = 200, who?: string): Promise<void> {
  for (const [index, key] of keys.entries()) {
    if (index > 0) await world.clock.advance(every);
    await service.submit(reply(key, who));
  }
}

const sent = (runId: string) => world.emulator.engine.followups(runId).map((entry) => entry.message);
const acknowledged = async () =>
  (await world.store.outbox.list()).filter((row) => row.kind === 'followup_accepted').map((row) => (row.payload as { reference: { ts: string } }).reference.ts);

describe('followups: all with a window', () => {
  it('five replies within a second go as one follow-up once the window after the first has passed, each acknowledged', async () => {
    const service = intake();
    const work = worker();
    const runId = await aRun(service, work);
    await replies(service, ['R1', 'R2', 'R3', 'R4', 'R5']);
    expect(await work.drain()).toBe(0);
    await world.clock.advance(WINDOW - 800);
    expect(await work.drain()).toBe(1);
    expect(sent(runId)).toEqual(['text of R1\n\ntext of R2\n\ntext of R3\n\ntext of R4\n\ntext of R5']);
    expect(await acknowledged()).toEqual(['R1', 'R2', 'R3', 'R4', 'R5']);
    expect((await world.store.triggers.countByState()).done).toBe(6);
  });

  it('a window of 0 keeps each reply its own follow-up', async () => {
    const service = intake(0);
    const work = worker({ window: 0 });
    const runId = await aRun(service, work);
    await replies(service, ['R1', 'R2', 'R3']);
    await work.drain();
    expect(sent(runId)).toEqual(['text of R1', 'text of R2', 'text of R3']);
  });

  it('a stop keeps its place: the replies before it go as one, the one after it alone', async () => {
    const service = intake();
    const work = worker();
    const runId = await aRun(service, work);
    await replies(service, ['R1', 'R2']);
    await service.submit(stop);
    await service.submit(reply('R3'));
    await world.clock.advance(WINDOW);
    await work.drain();
    expect(sent(runId)).toEqual(['text of R1\n\ntext of R2', 'text of R3']);
    // Stopped between the two: the last follow-up continued the cancelled run.
    expect(world.emulator.engine.history(runId).map((entry) => entry.state)).toEqual(['QUEUED', 'CANCELLED', 'QUEUED']);
  });

  it('replies by someone else go as the next follow-up (each is sent with its asker’s key), still in order', async () => {
    const service = intake();
    const work = worker();
    const runId = await aRun(service, work);
    await replies(service, ['A1', 'A2']);
    await replies(service, ['B1'], 0, 'U2');
    await replies(service, ['A3']);
    await world.clock.advance(WINDOW);
    await work.drain();
    expect(sent(runId)).toEqual(['text of A1\n\ntext of A2', 'text of B1', 'text of A3']);
    expect(await acknowledged()).toEqual(['A1', 'A2', 'B1', 'A3']);
  });

  it('a failed call gives the gathered replies back; the retry sends all of them once', async () => {
    let failures = 1;
    const flaky: AgentRuns = Object.assign(Object.create(world.client) as AgentRuns, {
      sendFollowup: async (runId: string, message: string) => {
        if (failures-- > 0) throw new AgentApiError('busy', { kind: 'server', retryable: true, status: 503 });
        return world.client.sendFollowup(runId, message);
      },
    });
    const service = intake();
    const work = worker({ runs: flaky });
    const runId = await aRun(service, work);
    await replies(service, ['R1', 'R2', 'R3']);
    await world.clock.advance(WINDOW);
    await work.drain();
    expect(sent(runId)).toEqual([]);
    expect((await world.store.triggers.countByState()).pending).toBe(3);
    await world.clock.advance(60_000);
    await work.drain();
    expect(sent(runId)).toEqual(['text of R1\n\ntext of R2\n\ntext of R3']);
    expect(await acknowledged()).toEqual(['R1', 'R2', 'R3']);
  });

  it('a worker that crashed after gathering: the next one sends the same replies, once, in one follow-up', async () => {
    const service = intake();
    const runId = await aRun(service, worker());
    await replies(service, ['R1', 'R2', 'R3']);
    await world.clock.advance(WINDOW);
    // The crashed worker claimed the first and gathered the others, then never finished.
    const head = await world.store.triggers.claimNext('crashed', world.clock.now(), 30_000);
    expect(await world.store.triggers.claimFollowing(head!, 'crashed', world.clock.now(), 30_000, 10)).toHaveLength(2);
    const next = worker({ owner: 'worker-2' });
    expect(await next.drain()).toBe(0);
    await world.clock.advance(30_000);
    expect(await next.drain()).toBe(1);
    expect(sent(runId)).toEqual(['text of R1\n\ntext of R2\n\ntext of R3']);
    expect(await acknowledged()).toEqual(['R1', 'R2', 'R3']);
    expect(await next.drain()).toBe(0);
  });
});
