import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useIntakeWorld } from '../../../test/core/intake-harness.js';
import { RecordingTracing } from '../../../test/core/recording-tracing.js';
import { testSurfaces } from '../../../test/helpers/surfaces.js';
import { silentLogger } from '../ports/logger.js';
import { AgentApiError, type AgentRuns } from '../ports/agent-runs.js';
import { installTracing, noTracing } from '../ports/tracing.js';
import type { TriggerInput } from '../ports/triggers.js';
import { IntakeService } from './intake-service.js';
import { IntakeWorker } from './intake-worker.js';

const world = useIntakeWorld('intake-tracing-key', { resetEach: true });
let traces: RecordingTracing;
let service: IntakeService;

beforeEach(() => {
  traces = new RecordingTracing();
  installTracing(traces);
  service = new IntakeService({ store: world.store, clock: world.clock });
});
afterEach(() => installTracing(noTracing));

const worker = (runs: AgentRuns = world.client) =>
  new IntakeWorker({
    store: world.store,
    runs,
    clock: world.clock,
    logger: silentLogger,
    routing: { defaults: { config: { environment_id: 'env_main' } }, schedules: {} },
    surfaces: testSurfaces({}),
    owner: 'worker-1',
    options: { retryWindowMs: 15 * 60_000 },
    random: () => 0.5,
  });

const mention: TriggerInput = {
  kind: 'start',
  key: 'Ev1',
  source: 'slack',
  anchor: 'slack:C1:1700.1',
  payload: {
    prompt: 'Fix the flaky test',
    title: 'Fix the flaky test',
    origin: { source: 'slack', channel: 'C1' },
    destinations: ['slack:C1:1700.1'],
    requester: { platform: 'slack', id: 'U1', name: 'ada' },
  },
};

/** Submits as an edge does: inside the request's span. */
const submitted = () => traces.inSpan('request', { kind: 'server', root: true }, () => service.submit(mention));

describe('the intake traced', () => {
  it('stores the request’s trace with the trigger and its first messages, and names what it asked on the request span', async () => {
    await submitted();
    const [request] = traces.named('request');
    expect(request?.attributes).toEqual({
      'agent_bridge.surface': 'slack',
      'agent_bridge.place': 'slack:C1:1700.1',
      'agent_bridge.person': 'U1',
      'agent_bridge.trigger_key': 'Ev1',
      'agent_bridge.trigger_kind': 'start',
    });
    expect((await world.store.triggers.getByKey('Ev1'))?.traceparent).toBe(request?.traceparent);
    expect((await world.store.outbox.list()).map((row) => row.traceparent)).toEqual([request?.traceparent]);
  });

  it('links a redelivery to the first request instead of storing anything under it', async () => {
    await submitted();
    await submitted();
    const [first, again] = traces.named('request');
    expect(again?.attributes['agent_bridge.redelivered']).toBe(true);
    expect(again?.links).toEqual([first?.traceparent]);
    expect(first?.attributes['agent_bridge.redelivered']).toBeUndefined();
  });

  it('makes the first attempt the request’s child, and stores the run and what it owes with the intake span’s trace', async () => {
    await submitted();
    await worker().drain();
    const [request] = traces.named('request');
    const [intake] = traces.named('agent_bridge.intake');
    expect(intake?.options).toMatchObject({ kind: 'consumer', parent: request?.traceparent });
    const runId = (await world.store.triggers.getByKey('Ev1'))?.runId ?? '';
    expect(intake?.attributes).toMatchObject({ 'agent_bridge.attempt': 1, 'agent_bridge.run_id': runId, 'agent_bridge.trigger_key': 'Ev1' });
    expect((await world.store.trackedRuns.get(runId))?.traceparent).toBe(intake?.traceparent);
    const owedByIntake = (await world.store.outbox.list()).filter((row) => row.kind !== 'received');
    expect(owedByIntake.length).toBeGreaterThan(0);
    for (const row of owedByIntake) expect(row.traceparent).toBe(intake?.traceparent);
  });

  it('marks a failed attempt with the run API’s code and a retry event; the retry links to the request instead of being its child', async () => {
    let fail = true;
    const flaky: AgentRuns = Object.assign(Object.create(world.client) as AgentRuns, {
      createRun: async (request: Parameters<AgentRuns['createRun']>[0]) => {
        if (!fail) return world.client.createRun(request);
        throw new AgentApiError('capacity full', { kind: 'rate_limited', status: 429, retryable: true });
      },
    });
    await submitted();
    await worker(flaky).drain();
    const [request] = traces.named('request');
    const [first] = traces.named('agent_bridge.intake');
    expect(first?.failed).toBe(new AgentApiError('x', { kind: 'rate_limited', status: 429, retryable: true }).code);
    expect(first?.events).toEqual([{ name: 'retry', attributes: { 'agent_bridge.attempt': 1, 'agent_bridge.retry_in_ms': expect.any(Number) } }]);

    fail = false;
    await world.clock.advance(60_000);
    await worker(flaky).drain();
    const [, retry] = traces.named('agent_bridge.intake');
    expect(retry?.options).toMatchObject({ root: true, links: [request?.traceparent] });
    expect(retry?.options.parent).toBeUndefined();
    expect(retry?.attributes).toMatchObject({ 'agent_bridge.attempt': 2, 'agent_bridge.redelivered': true });
  });
});
