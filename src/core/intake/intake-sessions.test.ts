import { beforeEach, describe, expect, it } from 'vitest';
import { useIntakeWorld } from '../../../test/core/intake-harness.js';
import { CapturingLogger } from '../../../test/core/capturing-logger.js';
import type { OutboxMessage } from '../ports/messages.js';
import type { TriggerInput } from '../ports/triggers.js';
import { IntakeService } from './intake-service.js';
import { IntakeWorker } from './intake-worker.js';
import { testSurfaces } from '../../../test/helpers/surfaces.js';

/*
 * What the intake worker owes a run's session (`session` rows) at the places that show
 * sessions — working when it starts it, working again when a follow-up revives it, idle when a stop
 * ends it (also a stop that finds it already over) — keyed as the tracker keys the same change.
 */

const API_KEY = 'intake-sessions-key';
const ANCHOR = 'slack:C1:1700.1';
const LOG = 'log:cli';
/** The Slack thread shows sessions; the log destination does not. */
const sessionPlaces = (destination: string) => destination.startsWith('slack:');

const world = useIntakeWorld(API_KEY, { resetEach: true });
let service: IntakeService;
beforeEach(() => {
  service = new IntakeService({ store: world.store, clock: world.clock });
});

const worker = () =>
  new IntakeWorker({
    store: world.store,
    runs: world.client,
    clock: world.clock,
    logger: new CapturingLogger(),
    routing: { defaults: {}, schedules: {} },
    surfaces: testSurfaces(),
    owner: 'worker-1',
    options: { retryWindowMs: 60_000 },
    random: () => 0.5,
    sessionPlaces,
  });
const requester = { platform: 'slack', id: 'U1', name: 'ada' };
const trigger = (kind: 'start' | 'followup' | 'cancel', key: string): TriggerInput =>
  kind === 'start'
    ? {
        kind,
        key,
        source: 'slack',
        anchor: ANCHOR,
        payload: {
          prompt: 'Fix the flaky test',
          title: 'Fix the flaky test',
          origin: { source: 'slack', channel: 'C1' },
          destinations: [ANCHOR, LOG],
          requester,
        },
      }
    : kind === 'followup'
      ? { kind, key, source: 'slack', anchor: ANCHOR, payload: { message: 'also the docs', requester } }
      : { kind, key, source: 'slack', anchor: ANCHOR, payload: { requester } };
const sessionRows = async () =>
  (await world.store.outbox.list()).filter((row) => row.kind === 'session').map((row) => ({ key: row.key, message: row.payload as OutboxMessage }));
/** Every session change owed, in order: `session` rows by their key, a change a status row carries as `<key>+session`. */
const sessionChanges = async () =>
  (await world.store.outbox.list()).flatMap((row) =>
    row.kind === 'session' ? [row.key] : row.kind === 'status' && (row.payload as { session?: unknown }).session ? [`${row.key}+session`] : [],
  );

async function started(): Promise<string> {
  await service.submit(trigger('start', 'Ev1'));
  await worker().drain();
  return world.emulator.engine.list({}).runs[0]!.run_id;
}

/** The tracker's record of an observed state (what it would write), without its rows. */
async function observed(runId: string, state: string, tracked: boolean): Promise<void> {
  const run = (await world.store.trackedRuns.get(runId))!;
  await world.store.trackedRuns.recordTransition(runId, run.transition, { state, serverUpdatedAt: null, sessionLink: null, tracked }, [], world.clock.now());
}

describe('the session rows the intake worker owes', () => {
  it('a start owes working at transition 0, created with who asked and the run’s title, only where sessions are shown, with the status edit', async () => {
    const runId = await started();
    // One row for the two where both are owed: the status edit carries the session change, made first.
    expect(await sessionRows()).toEqual([]);
    const rows = await world.store.outbox.list();
    expect(rows.find((row) => row.key === `run:${runId}:0:${ANCHOR}:status`)?.payload).toEqual({
      kind: 'status',
      run: expect.objectContaining({ runId, title: 'Fix the flaky test' }) as unknown,
      receivedKey: `received:Ev1:${ANCHOR}`,
      session: { phase: 'working', title: 'Fix the flaky test', opening: true, initiator: { platform: 'slack', id: 'U1' } },
    });
    expect(rows.filter((row) => row.destination === LOG).map((row) => row.payload)).not.toContainEqual(
      expect.objectContaining({ session: expect.anything() as unknown }),
    );
  });

  it('a follow-up that revives an ended run owes working with the next transition; one to a working run owes nothing', async () => {
    const runId = await started();
    await service.submit(trigger('followup', 'Ev2'));
    await worker().drain();
    expect(await sessionChanges()).toHaveLength(1);
    world.emulator.engine.drive(runId, 'SUCCEEDED');
    await observed(runId, 'SUCCEEDED', false);
    await service.submit(trigger('followup', 'Ev3'));
    await worker().drain();
    expect(await sessionChanges()).toEqual([`run:${runId}:0:${ANCHOR}:status+session`, `run:${runId}:2:${ANCHOR}:session:working`]);
  });

  it('a stop the run API took owes idle with the next transition, before the status edit', async () => {
    const runId = await started();
    await service.submit(trigger('cancel', 'Ev2'));
    await worker().drain();
    expect(world.emulator.engine.get(runId)?.state).toBe('CANCELLED');
    const keys = (await world.store.outbox.list()).map((row) => row.key);
    expect(await sessionChanges()).toEqual([`run:${runId}:0:${ANCHOR}:status+session`, `run:${runId}:1:${ANCHOR}:session:idle`]);
    expect(keys.indexOf(`run:${runId}:1:${ANCHOR}:session:idle`)).toBeLessThan(keys.indexOf(`stopping:Ev2:${ANCHOR}`));
  });

  it('a stop that finds the run already over (the tracker has not seen it yet, or an earlier attempt cancelled it) still owes idle', async () => {
    const runId = await started();
    world.emulator.engine.drive(runId, 'SUCCEEDED');
    await service.submit(trigger('cancel', 'Ev2'));
    await worker().drain();
    expect(await sessionChanges()).toEqual([`run:${runId}:0:${ANCHOR}:status+session`, `run:${runId}:1:${ANCHOR}:session:idle`]);
    expect((await world.store.outbox.list()).map((row) => row.key)).toContain('notice:not-cancellable:Ev2');
  });
});
