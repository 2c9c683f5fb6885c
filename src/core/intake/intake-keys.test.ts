import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CapturingLogger } from '../../../test/core/capturing-logger.js';
import { AgentApiClient } from '../../agent-api/index.js';
import { creatorUidFor, startEmulator, type RunningEmulator } from '../../emulator/index.js';
import { openSqliteStore, type SqliteStore } from '../../store/sqlite-store.js';
import { AgentApiError, type AgentRuns } from '../ports/agent-runs.js';
import { TestClock } from '../ports/clock.js';
import type { OutboxMessage } from '../ports/messages.js';
import type { RunKeys } from '../ports/people.js';
import type { TriggerInput } from '../ports/triggers.js';
import { IntakeService } from './intake-service.js';
import { IntakeWorker } from './intake-worker.js';
import type { RoutingTable } from './routing.js';
import { testSurfaces } from '../../../test/helpers/surfaces.js';

/**
 * The intake worker under a person's own key, against the emulator in owner visibility
 * (a key sees only the runs it created): a create whose answer was lost is found again by listing
 * with the same key, and a refused key ends the trigger at once, told once, without a retry.
 */
const SERVICE_KEY = 'intake-keys-service-key';
const ALICE_KEY = 'wk_personal_alice_intake_keys_A1ce';
const ALICE = 'U0ALICE';
const ANCHOR = 'slack:C1:1700.1';
const routing: RoutingTable = { defaults: { config: { environment_id: 'env_main' } }, schedules: {} };

let emulator: RunningEmulator;
let service: AgentApiClient;
let alice: AgentApiClient;
let store: SqliteStore;
let clock: TestClock;
let intake: IntakeService;
let used: string[];
let refused: Array<[string, number]>;

beforeAll(async () => {
  emulator = await startEmulator({ apiKey: SERVICE_KEY, port: 0, manual: true, visibility: 'owner' });
  service = new AgentApiClient({ baseUrl: emulator.baseUrl, apiKey: SERVICE_KEY, sleep: async () => {} });
  alice = new AgentApiClient({ baseUrl: emulator.baseUrl, apiKey: ALICE_KEY, sleep: async () => {} });
});
afterAll(async () => {
  await service.close();
  await alice.close();
  await emulator.close();
});
beforeEach(() => {
  store = openSqliteStore({ path: ':memory:' });
  clock = new TestClock();
  intake = new IntakeService({ store, clock });
  used = [];
  refused = [];
});
afterEach(async () => {
  await store.close();
  await fetch(`${emulator.url}/_emulator/reset`, { method: 'POST' });
});

/** Alice's requests run under her key (`aliceRuns`), everyone else's under the service key. */
function keys(aliceRuns: AgentRuns): RunKeys {
  return {
    choose: (requester) =>
      Promise.resolve(requester?.id === ALICE ? { kind: 'use', runs: aliceRuns, personalKeyOwner: ALICE } : { kind: 'use', runs: service }),
    forOwner: (person) => Promise.resolve(person === ALICE ? aliceRuns : undefined),
    used: (person) => {
      used.push(person);
      return Promise.resolve();
    },
    refused: (person, status) => {
      refused.push([person, status]);
      return Promise.resolve();
    },
    howToConnect: () => '`/agent connect` in Slack',
  };
}

function worker(aliceRuns: AgentRuns = alice): IntakeWorker {
  return new IntakeWorker({
    store,
    runs: service,
    clock,
    logger: new CapturingLogger(),
    routing,
    surfaces: testSurfaces(),
    owner: 'worker-1',
    options: { retryWindowMs: 15 * 60_000 },
    random: () => 0.5,
    keys: keys(aliceRuns),
  });
}

const start = (key: string): TriggerInput => ({
  kind: 'start',
  key,
  source: 'slack',
  anchor: ANCHOR,
  payload: {
    prompt: 'Fix the flaky test',
    title: 'Fix the flaky test',
    origin: { source: 'slack', channel: 'C1' },
    destinations: [ANCHOR],
    requester: { platform: 'slack', id: ALICE, name: '<@U0ALICE>' },
  },
});

const runs = () => emulator.engine.list({}).runs;
const owed = async () => (await store.outbox.list()).map((row) => row.payload as OutboxMessage);

describe('the intake worker under a person’s key', () => {
  it('after a create whose answer was lost, finds the run with the same key (the service key cannot see it) and adopts it', async () => {
    let creates = 0;
    const losesAnswer: AgentRuns = Object.assign(Object.create(alice) as AgentRuns, {
      createRun: async (request: Parameters<AgentRuns['createRun']>[0]) => {
        creates++;
        await alice.createRun(request);
        throw new AgentApiError('POST /agent/run timed out', { kind: 'timeout', retryable: true });
      },
    });
    await intake.submit(start('Ev1'));
    await worker(losesAnswer).drain();
    expect((await store.triggers.getByKey('Ev1'))?.state).toBe('pending');
    expect((await service.listRuns({})).runs).toEqual([]);

    await clock.advance(60_000);
    await worker(losesAnswer).drain();
    expect(creates).toBe(1);
    const [run] = runs();
    expect(runs()).toHaveLength(1);
    expect(emulator.engine.creatorOf(run?.run_id ?? '')?.uid).toBe(creatorUidFor(ALICE_KEY));
    expect(await store.triggers.getByKey('Ev1')).toMatchObject({ state: 'done', runId: run?.run_id });
    expect((await store.trackedRuns.get(run?.run_id ?? ''))?.personalKeyOwner).toBe(ALICE);
    expect(used).toContain(ALICE);
  });

  it('a refused key ends the start at once: no retry, the person and the thread told once, the key marked', async () => {
    emulator.keys.revoke(ALICE_KEY);
    await intake.submit(start('Ev2'));
    await worker().drain();
    const trigger = await store.triggers.getByKey('Ev2');
    expect(trigger).toMatchObject({ state: 'failed', attempts: 1, lastError: 'personal_key_refused' });
    expect(runs()).toEqual([]);
    expect(refused).toEqual([[ALICE, 401]]);
    expect(used).toEqual([]);
    const said = (await owed()).filter((message) => message.kind === 'notice' || message.kind === 'failed');
    expect(said).toEqual([
      expect.objectContaining({
        kind: 'notice',
        privateTo: ALICE,
        text: expect.stringContaining('No run was started: the run API refused your personal API key (401)'),
      }),
      expect.objectContaining({ kind: 'failed', reason: 'the run API refused the personal API key of the person who asked' }),
    ]);
    // Nothing is due again: a later pass owes nothing more.
    await clock.advance(60 * 60_000);
    expect(await worker().drain()).toBe(0);
    expect(await owed()).toHaveLength(said.length + 1);
  });

  it('a cancel from the console admin (no person) uses the key that created the run, which alone can see it', async () => {
    await intake.submit(start('Ev3'));
    await worker().drain();
    const [run] = runs();
    const runId = run?.run_id ?? '';
    expect((await store.trackedRuns.get(runId))?.personalKeyOwner).toBe(ALICE);
    await intake.submit({
      kind: 'cancel',
      key: 'console:cancel:1',
      source: 'console',
      anchor: ANCHOR,
      payload: { runId, requester: { platform: 'console', id: 'console-admin', name: 'the console admin' } },
    });
    await worker().drain();
    expect(await store.triggers.getByKey('console:cancel:1')).toMatchObject({ state: 'done', runId });
    expect(emulator.engine.list({}).runs.find((found) => found.run_id === runId)?.state).toBe('CANCELLED');
  });

  it('a cancel from someone else keeps their own key: the run stays, and they are told it belongs to another key', async () => {
    await intake.submit(start('Ev4'));
    await worker().drain();
    const runId = runs()[0]?.run_id ?? '';
    await intake.submit({
      kind: 'cancel',
      key: 'slack:cancel:bob',
      source: 'slack',
      anchor: ANCHOR,
      payload: { runId, requester: { platform: 'slack', id: 'U0BOB', name: '<@U0BOB>' } },
    });
    await worker().drain();
    expect(await store.triggers.getByKey('slack:cancel:bob')).toMatchObject({ state: 'failed', lastError: 'run not visible to this key' });
    expect(emulator.engine.list({}).runs.find((found) => found.run_id === runId)?.state).not.toBe('CANCELLED');
  });
});
