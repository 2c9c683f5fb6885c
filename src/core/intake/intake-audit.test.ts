import { expect, it } from 'vitest';
import { useIntakeWorld } from '../../../test/core/intake-harness.js';
import { CapturingLogger } from '../../../test/core/capturing-logger.js';
import { testSurfaces } from '../../../test/helpers/surfaces.js';
import type { AgentRuns } from '../ports/agent-runs.js';
import type { RunKeys } from '../ports/people.js';
import type { StoredTrigger } from '../ports/store.js';
import type { Requester, TriggerInput } from '../ports/triggers.js';
import { auditEntryOf } from './audit-entry.js';
import { IntakeService } from './intake-service.js';
import { IntakeWorker } from './intake-worker.js';
import type { RoutingTable } from './routing.js';
import { settle } from './step-context.js';

/**
 * The audit trail of the intake worker's acts: a run started, followed up and
 * cancelled each leave one entry — who, where, which run, the route's name and whose key — and no
 * words anyone wrote.
 */
const KEY = 'wk_service_key_audit_0123456789';
const ALICE_KEY = 'wk_personal_alice_audit_A1ce';
const ANCHOR = 'slack:C1:1700.1';
const MARKER = 'zebra-marker-7f3a';
const alice: Requester = { platform: 'slack', id: 'U0ALICE', name: '<@U0ALICE>' };
const bob: Requester = { platform: 'slack', id: 'U0BOB', name: '<@U0BOB>' };
const routing: RoutingTable = { defaults: { config: { environment_id: 'env_main', name: 'web' } }, schedules: {} };

const world = useIntakeWorld(KEY);

/** Alice's requests run under "her key" (the service client, marked as hers); Bob's under the service key. */
function keys(runs: AgentRuns): RunKeys {
  return {
    choose: (requester) => Promise.resolve(requester?.id === alice.id ? { kind: 'use', runs, personalKeyOwner: alice.id } : { kind: 'use', runs }),
    forOwner: () => Promise.resolve(runs),
    used: () => Promise.resolve(),
    refused: () => Promise.resolve(),
    howToConnect: () => 'connect one',
  };
}

const worker = () =>
  new IntakeWorker({
    store: world.store,
    runs: world.client,
    clock: world.clock,
    logger: new CapturingLogger(),
    routing,
    surfaces: testSurfaces(),
    owner: 'worker-1',
    options: { retryWindowMs: 60_000 },
    keys: keys(world.client),
  });

it('records a start, a follow-up and a cancel once each, with who, where, which run, the route and the key, and no text', async () => {
  const intake = new IntakeService({ store: world.store, clock: world.clock });
  const words = `Fix the ${MARKER} bug; my key is ${ALICE_KEY}`;
  const start: TriggerInput = {
    kind: 'start',
    key: 'Ev1',
    source: 'slack',
    anchor: ANCHOR,
    payload: { prompt: words, title: words, origin: { source: 'slack', channel: 'C1' }, destinations: [ANCHOR], requester: alice },
  };
  await intake.submit(start);
  await worker().drain();
  const runId = (await world.store.triggers.getByKey('Ev1'))?.runId;
  expect(runId).toBeTruthy();
  await intake.submit({ kind: 'followup', key: 'Ev2', source: 'slack', anchor: ANCHOR, payload: { message: `also ${MARKER} ${ALICE_KEY}`, requester: bob } });
  await worker().drain();
  await intake.submit({ kind: 'cancel', key: 'Ev3', source: 'slack', anchor: ANCHOR, payload: { requester: alice } });
  await worker().drain();

  const entries = await world.store.audit.list({ limit: 10 });
  expect(
    entries
      .map((entry) => ({ act: entry.act, personId: entry.personId, surface: entry.surface, runId: entry.runId, detail: entry.detail, onceKey: entry.onceKey }))
      .reverse(),
  ).toEqual([
    { act: 'run.started', personId: alice.id, surface: 'slack', runId, detail: { route: 'web', key: 'personal' }, onceKey: 'trigger:Ev1' },
    { act: 'run.followed_up', personId: bob.id, surface: 'slack', runId, detail: { route: 'web', key: 'service' }, onceKey: 'trigger:Ev2' },
    { act: 'run.cancelled', personId: alice.id, surface: 'slack', runId, detail: { route: 'web', key: 'personal' }, onceKey: 'trigger:Ev3' },
  ]);
  // Neither the words people wrote nor a key they pasted reach any row of the trail.
  const rows = JSON.stringify(world.store.db.prepare('SELECT * FROM audit_entries').all());
  expect(rows).not.toContain(MARKER);
  expect(rows).not.toContain(ALICE_KEY);
  expect(rows).not.toContain('Fix the');
});

it('a request a limit refused is recorded as request.refused_limit, with what the step said of the limit', () => {
  const trigger = {
    kind: 'start',
    key: 'Ev9',
    source: 'linear',
    anchor: 'linear:issue-1',
    payload: {
      prompt: MARKER,
      title: MARKER,
      origin: { source: 'linear' },
      destinations: ['linear:issue-1'],
      requester: { platform: 'linear', id: 'lin-user-1' },
    },
  } as unknown as StoredTrigger;
  const entry = auditEntryOf(trigger, settle({ state: 'ignored', error: 'limit' }, {}, { detail: { limit: 'per_day' } }), 5_000);
  expect(entry).toEqual({
    at: 5_000,
    act: 'request.refused_limit',
    personId: 'lin-user-1',
    surface: 'linear',
    onceKey: 'trigger:Ev9',
    detail: { limit: 'per_day' },
  });
  // Ignored for any other reason, nothing changed: no entry.
  expect(auditEntryOf(trigger, settle({ state: 'ignored', error: 'not allowed' }), 5_000)).toBeUndefined();
});
