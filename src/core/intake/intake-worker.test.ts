import { beforeEach, describe, expect, it } from 'vitest';
import { useIntakeWorld } from '../../../test/core/intake-harness.js';
import { CapturingLogger } from '../../../test/core/capturing-logger.js';
import { AgentApiClient } from '../../agent-api/index.js';
import { AgentApiError, type AgentRuns } from '../ports/agent-runs.js';
import type { AccessPolicy, PromptEnricher } from '../ports/intake.js';
import { IntakeWorker } from './intake-worker.js';
import { type OutboxMessage } from '../ports/messages.js';
import type { RoutingTable } from './routing.js';
import { IntakeService } from './intake-service.js';
import { referenceLine, type TriggerInput } from '../ports/triggers.js';
import { anchorAliasSetting } from '../ports/setting-names.js';
import { testSurfaces } from '../../../test/helpers/surfaces.js';

const API_KEY = 'intake-test-key';
const ANCHOR = 'slack:C1:1700.1';
const routing: RoutingTable = {
  defaults: { config: { environment_id: 'env_main' } },
  schedules: {},
};
const surfaces = testSurfaces({ slack: { C_FACTORY: { factory_uid: 'fac_1' } } });

const world = useIntakeWorld(API_KEY, { resetEach: true });
let logger: CapturingLogger;
let service: IntakeService;
beforeEach(() => {
  logger = new CapturingLogger();
  service = new IntakeService({ store: world.store, clock: world.clock });
});

function worker(
  overrides: { runs?: AgentRuns; owner?: string; access?: AccessPolicy; retryWindowMs?: number; enrichers?: Record<string, PromptEnricher> } = {},
) {
  return new IntakeWorker({
    store: world.store,
    runs: overrides.runs ?? world.client,
    clock: world.clock,
    logger,
    routing,
    surfaces,
    owner: overrides.owner ?? 'worker-1',
    options: { retryWindowMs: overrides.retryWindowMs ?? 15 * 60_000 },
    random: () => 0.5,
    ...(overrides.access && { access: overrides.access }),
    ...(overrides.enrichers && { enrichers: overrides.enrichers }),
  });
}

function start(key: string, extra: Partial<Extract<TriggerInput, { kind: 'start' }>['payload']> = {}, anchor = ANCHOR): TriggerInput {
  return {
    kind: 'start',
    key,
    source: 'slack',
    anchor,
    payload: {
      prompt: 'Fix the flaky test',
      title: 'Fix the flaky test',
      origin: { source: 'slack', channel: 'C1' },
      destinations: [anchor],
      requester: { platform: 'slack', id: 'U1', name: 'ada' },
      ...extra,
    },
  };
}

const followup = (key: string, message = 'also update the docs'): TriggerInput => ({
  kind: 'followup',
  key,
  source: 'slack',
  anchor: ANCHOR,
  payload: { message, reference: { ts: '1700.2' } },
});
const cancel = (key: string): TriggerInput => ({
  kind: 'cancel',
  key,
  source: 'slack',
  anchor: ANCHOR,
  payload: { requester: { platform: 'slack', id: 'U2', name: 'grace' } },
});

const runs = () => world.emulator.engine.list({}).runs;
const messages = async () => (await world.store.outbox.list()).map((row) => ({ key: row.key, message: row.payload as OutboxMessage }));
async function faults(fault: Record<string, unknown>) {
  await fetch(`${world.emulator.url}/_emulator/faults`, { method: 'POST', body: JSON.stringify(fault) });
}

describe('waking other workers', () => {
  it('tells the caller to wake another worker only when its claim saw another trigger due', async () => {
    await service.submit(start('Wake1', {}, 'slack:C1:1.1'));
    await service.submit(start('Wake2', {}, 'slack:C1:2.2'));
    const woken: string[] = [];
    const one = worker();
    expect(await one.workOnce(() => woken.push('first'))).toBe(true);
    expect(one.sawMoreDue).toBe(true);
    expect(await one.workOnce(() => woken.push('second'))).toBe(true);
    expect(one.sawMoreDue).toBe(false);
    expect(woken).toEqual(['first']);
    expect(await one.workOnce(() => woken.push('none'))).toBe(false);
    expect(woken).toEqual(['first']);
  });
});

describe('starting a run', () => {
  it('creates the run with the reference line, stores and links it, owes the first status', async () => {
    expect(await service.submit(start('Ev1'))).toMatchObject({ accepted: true });
    expect(await worker().drain()).toBe(1);

    const [run] = runs();
    expect(run?.prompt).toBe(`Fix the flaky test\n\n${referenceLine('Ev1')}`);
    expect(run?.agent_config).toMatchObject({ environment_id: 'env_main', name: 'slack' });
    expect(await world.store.anchors.currentRun(ANCHOR)).toBe(run?.run_id);
    expect(await world.store.trackedRuns.get(run!.run_id)).toMatchObject({
      anchor: ANCHOR,
      destinations: [ANCHOR],
      triggerKey: 'Ev1',
      state: 'QUEUED',
      tracked: true,
      // Usage and limits count it against who asked and the route's name.
      askedBy: 'U1',
      routeName: 'slack',
    });
    expect((await world.store.triggers.getByKey('Ev1'))?.state).toBe('done');
    expect((await messages()).map((row) => row.message.kind)).toEqual(['received', 'status']);
  });

  it('a redelivered event is accepted once and starts one run', async () => {
    await service.submit(start('Ev1'));
    expect(await service.submit(start('Ev1'))).toMatchObject({ accepted: false });
    await worker().drain();
    expect(runs()).toHaveLength(1);
    expect((await messages()).filter((row) => row.message.kind === 'received')).toHaveLength(1);
  });

  it('dispatches a factory route with the ticket', async () => {
    await service.submit(start('Ev1', { origin: { source: 'slack', channel: 'C_FACTORY' }, ticket: { ref: 'ENG-1', url: 'https://linear.app/x/ENG-1' } }));
    await worker().drain();
    const [run] = runs();
    expect(run).toMatchObject({ source: 'FACTORY', factory_uid: 'fac_1', ticket_ref: 'ENG-1' });
    expect(await world.store.trackedRuns.get(run!.run_id)).toMatchObject({ askedBy: 'U1', routeName: 'slack' });
  });

  it('after a create whose answer was lost, adopts the run instead of creating a second', async () => {
    let creates = 0;
    const losesAnswer: AgentRuns = Object.assign(Object.create(world.client) as AgentRuns, {
      createRun: async (request: Parameters<AgentRuns['createRun']>[0]) => {
        creates++;
        await world.client.createRun(request);
        throw new AgentApiError('POST /agent/run timed out', { kind: 'timeout', retryable: true });
      },
    });
    await service.submit(start('Ev1'));
    await worker({ runs: losesAnswer }).drain();
    expect(creates).toBe(1);
    expect((await world.store.triggers.getByKey('Ev1'))?.state).toBe('pending');

    await world.clock.advance(60_000);
    await worker({ runs: losesAnswer }).drain();
    expect(creates).toBe(1);
    expect(runs()).toHaveLength(1);
    const trigger = await world.store.triggers.getByKey('Ev1');
    expect(trigger).toMatchObject({ state: 'done', runId: runs()[0]?.run_id });
  });

  it('denied requesters start nothing and are told why', async () => {
    await service.submit(start('Ev1'));
    await worker({ access: { deny: () => 'Only members of #agents may start runs.' } }).drain();
    expect(runs()).toHaveLength(0);
    expect((await world.store.triggers.getByKey('Ev1'))?.state).toBe('ignored');
    expect((await messages()).at(-1)?.message).toEqual({ kind: 'notice', text: 'Only members of #agents may start runs.', privateTo: 'U1' });
  });
});

describe('context and mentions in linked threads', () => {
  it('adds the edge’s context to the prompt, and starts without it when gathering fails', async () => {
    await service.submit(start('Ev1'));
    await service.submit(start('Ev2', {}, 'slack:C1:other'));
    let calls = 0;
    const enricher: PromptEnricher = {
      enrich: async (_trigger, payload) => {
        if (++calls === 2) throw new Error('slack is down');
        return `${payload.prompt}\n\n[quoted Slack thread]`;
      },
    };
    await worker({ enrichers: { slack: enricher } }).drain();
    const prompts = runs()
      .map((run) => run.prompt)
      .sort();
    expect(prompts).toEqual([`Fix the flaky test\n\n${referenceLine('Ev2')}`, `Fix the flaky test\n\n[quoted Slack thread]\n\n${referenceLine('Ev1')}`].sort());
  });

  it('a second mention in a thread with a run becomes a follow-up, even when sent before the first was worked', async () => {
    await service.submit(start('Ev1', { followupIfLinked: true }));
    await service.submit(start('Ev2', { prompt: 'and the docs', followupIfLinked: true, reference: { ts: '2' } }));
    await worker().drain();
    expect(runs()).toHaveLength(1);
    expect(world.emulator.engine.followups(runs()[0]!.run_id).map((entry) => entry.message)).toEqual(['and the docs']);
  });

  it('unlessActive: a second start stored before the first had a run starts nothing and says why; after the end it starts', async () => {
    await service.submit(start('L1', { unlessActive: true }));
    await service.submit(start('L2', { unlessActive: true }));
    await worker().drain();
    expect(runs()).toHaveLength(1);
    expect((await world.store.triggers.getByKey('L2'))?.state).toBe('ignored');
    const failed = (await messages()).filter((row) => row.message.kind === 'failed').map((row) => row.message);
    expect(failed).toEqual([expect.objectContaining({ reason: expect.stringContaining(`run ${runs()[0]!.run_id} is still active`) })]);

    const first = runs()[0]!.run_id;
    await world.store.trackedRuns.recordTransition(
      first,
      0,
      { state: 'SUCCEEDED', serverUpdatedAt: null, sessionLink: null, tracked: false },
      [],
      world.clock.now(),
    );
    await service.submit(start('L3', { unlessActive: true }));
    await worker().drain();
    expect(runs()).toHaveLength(2);
  });
});

describe('when the run API fails', () => {
  it('retries a 503 with backoff, says so once, then starts the run', async () => {
    await faults({ count: 8, status: 503 });
    await service.submit(start('Ev1'));
    const intake = worker();
    for (let step = 0; step < 10; step++) {
      await intake.drain();
      await world.clock.advance(60_000);
    }
    expect(runs()).toHaveLength(1);
    expect((await world.store.triggers.getByKey('Ev1'))?.attempts).toBeGreaterThan(1);
    const notices = (await messages()).filter((row) => row.message.kind === 'notice');
    expect(notices.map((row) => row.message)).toEqual([{ kind: 'notice', text: expect.stringContaining('not answering') }]);
  });

  it('waits at least Retry-After on 429 and says capacity is full once', async () => {
    await faults({ count: 20, status: 429, retry_after: 120 });
    await service.submit(start('Ev1'));
    await worker().drain();
    const trigger = await world.store.triggers.getByKey('Ev1');
    expect(trigger?.state).toBe('pending');
    expect(trigger!.nextAttemptAt - world.clock.now()).toBeGreaterThanOrEqual(120_000);
    expect((await messages()).filter((row) => row.message.kind === 'notice').map((row) => row.message)).toEqual([
      { kind: 'notice', text: expect.stringContaining('at capacity') },
    ]);
  });

  it('reports a refused key at once, with what to check, and creates nothing', async () => {
    const wrongKey = new AgentApiClient({ baseUrl: world.emulator.baseUrl, apiKey: 'wrong-key', sleep: async () => {} });
    await service.submit(start('Ev1'));
    await worker({ runs: wrongKey }).drain();
    await wrongKey.close();
    expect((await world.store.triggers.getByKey('Ev1'))?.state).toBe('failed');
    const failed = (await messages()).find((row) => row.message.kind === 'failed');
    expect(failed?.message).toMatchObject({ kind: 'failed', reason: '401: the run API refused the key; check AGENT_API_KEY' });
    expect(JSON.stringify(await messages())).not.toContain('wrong-key');
  });

  it('gives up when the retry window has passed and tells the person', async () => {
    await faults({ count: 100, status: 503 });
    await service.submit(start('Ev1'));
    const intake = worker({ retryWindowMs: 5 * 60_000 });
    for (let step = 0; step < 10; step++) {
      await intake.drain();
      await world.clock.advance(60_000);
    }
    expect((await world.store.triggers.getByKey('Ev1'))?.state).toBe('failed');
    expect((await messages()).filter((row) => row.message.kind === 'failed')).toHaveLength(1);
  });
});

describe('follow-ups and cancel', () => {
  async function startedRun(): Promise<string> {
    await service.submit(start('Ev1'));
    await worker().drain();
    return runs()[0]!.run_id;
  }

  it('a reply goes to the thread’s run, re-tracks it and owes the ✉️ acknowledgement', async () => {
    const runId = await startedRun();
    world.emulator.engine.drive(runId, 'SUCCEEDED');
    await world.store.trackedRuns.recordTransition(
      runId,
      0,
      { state: 'SUCCEEDED', serverUpdatedAt: null, sessionLink: null, tracked: false },
      [],
      world.clock.now(),
    );
    await service.submit(followup('Ev2'));
    await worker().drain();
    expect(world.emulator.engine.followups(runId).map((entry) => entry.message)).toEqual(['also update the docs']);
    expect((await world.store.trackedRuns.get(runId))?.tracked).toBe(true);
    expect((await messages()).at(-1)?.message).toEqual({ kind: 'followup_accepted', runId, reference: { ts: '1700.2' } });
  });

  it('a reply in a thread without a run is ignored', async () => {
    await service.submit(followup('Ev2'));
    await worker().drain();
    expect((await world.store.triggers.getByKey('Ev2'))?.state).toBe('ignored');
    expect(await messages()).toEqual([]);
  });

  it('cancel stops the run and remembers who asked', async () => {
    const runId = await startedRun();
    world.emulator.engine.drive(runId, 'INPROGRESS');
    await service.submit(cancel('Ev3'));
    await worker().drain();
    expect(world.emulator.engine.get(runId)?.state).toBe('CANCELLED');
    expect(await world.store.settings.get(`cancelled_by:${runId}`)).toBe('grace');
    // Acknowledged by editing the status message (no new message: the CANCELLED announcement is the one).
    expect((await messages()).at(-1)).toEqual({
      key: `stopping:Ev3:${ANCHOR}`,
      message: {
        kind: 'stopping',
        run: { runId, title: 'Fix the flaky test', state: 'QUEUED', pullRequests: [] },
        receivedKey: `received:Ev1:${ANCHOR}`,
        requestedBy: 'grace',
      },
    });
    expect((await messages()).filter((row) => row.message.kind === 'notice')).toEqual([]);
  });

  it('a comment at an issue id reaches a scheduled run through the alias its identifier names (notify.linear_issue)', async () => {
    await service.submit(start('schedule:deps:1', {}, 'schedule:deps:1'));
    await worker().drain();
    const runId = runs()[0]!.run_id;
    await world.store.settings.set(anchorAliasSetting('linear:ENG-42'), 'schedule:deps:1');
    await service.submit({
      kind: 'followup',
      key: 'Ev5',
      source: 'linear',
      anchor: 'linear:issue-uuid',
      payload: { message: 'use pnpm', otherAnchors: ['linear:ENG-42'] },
    });
    await worker().drain();
    expect(world.emulator.engine.followups(runId).map((entry) => entry.message)).toEqual(['use pnpm']);
  });

  it('a stop asked at another name of the place reaches its run (a Linear issue’s identifier anchor)', async () => {
    await service.submit(start('Ev1', {}, 'linear:ENG-7'));
    await worker().drain();
    const runId = runs()[0]!.run_id;
    const reference = { commentId: 'comment-1' };
    await service.submit({ kind: 'cancel', key: 'Ev4', source: 'linear', anchor: 'linear:issue-uuid', payload: { reference, otherAnchors: ['linear:ENG-7'] } });
    await worker().drain();
    expect(world.emulator.engine.get(runId)?.state).toBe('CANCELLED');
    expect((await messages()).at(-1)?.message).toMatchObject({ kind: 'stopping', receivedKey: 'received:Ev1:linear:ENG-7', reference });
  });

  it('cancel of an ended run says so', async () => {
    const runId = await startedRun();
    world.emulator.engine.drive(runId, 'SUCCEEDED');
    await service.submit(cancel('Ev3'));
    await worker().drain();
    expect((await messages()).at(-1)?.message).toEqual({ kind: 'notice', text: 'The run has already ended (SUCCEEDED); there is nothing to stop.' });
  });

  it('cancel of a run still being prepared is retried, not reported as an error', async () => {
    const runId = await startedRun();
    world.emulator.engine.drive(runId, 'PENDING');
    await service.submit(cancel('Ev3'));
    const intake = worker();
    await intake.drain();
    expect((await world.store.triggers.getByKey('Ev3'))?.state).toBe('pending');
    world.emulator.engine.drive(runId, 'INPROGRESS');
    await world.clock.advance(60_000);
    await intake.drain();
    expect(world.emulator.engine.get(runId)?.state).toBe('CANCELLED');
    expect((await messages()).some((row) => row.message.kind === 'failed')).toBe(false);
  });
});

describe('two workers on one store', () => {
  it('work every trigger exactly once', async () => {
    for (let index = 0; index < 12; index++) await service.submit(start(`Ev${index}`, {}, `slack:C1:${index}`));
    const [a, b] = [worker({ owner: 'a' }), worker({ owner: 'b' })];
    const [handledA, handledB] = await Promise.all([a.drain(), b.drain()]);
    expect(handledA + handledB).toBe(12);
    expect(runs()).toHaveLength(12);
    expect((await world.store.triggers.countByState()).done).toBe(12);
  });
});
