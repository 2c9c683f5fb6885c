import { beforeEach, describe, expect, it } from 'vitest';
import { useIntakeWorld } from '../../../test/core/intake-harness.js';
import { CapturingLogger } from '../../../test/core/capturing-logger.js';
import { testSurfaces } from '../../../test/helpers/surfaces.js';
import type { RequesterCheck } from '../ports/intake.js';
import type { NewOutboxRow, StoredTrigger } from '../ports/store.js';
import type { TriggerInput } from '../ports/triggers.js';
import { IntakeService } from './intake-service.js';
import { IntakeWorker } from './intake-worker.js';

/*
 * A requester the edge could not clear (`checkRequester`) is asked of the surface in the worker:
 * nothing is owed for the trigger until the surface says they may act, a refusal ends it silently, and
 * a surface that cannot be asked is asked again within the retry window, then given up without a word.
 */

const ANCHOR = 'github:acme/web#7';
const world = useIntakeWorld('clear-requester-key', { resetEach: true });
let logger: CapturingLogger;
let service: IntakeService;
beforeEach(() => {
  logger = new CapturingLogger();
  service = new IntakeService({ store: world.store, clock: world.clock });
});

function worker(checks: Record<string, RequesterCheck> = {}) {
  return new IntakeWorker({
    store: world.store,
    runs: world.client,
    clock: world.clock,
    logger,
    routing: { defaults: { config: { environment_id: 'env_main' } }, schedules: {} },
    surfaces: testSurfaces(),
    owner: 'worker-1',
    options: { retryWindowMs: 60_000 },
    random: () => 0.5,
    requesterChecks: checks,
  });
}

const start = (key: string, checkRequester = true): TriggerInput => ({
  kind: 'start',
  key,
  source: 'github',
  anchor: ANCHOR,
  payload: {
    prompt: 'Work on acme/web#7',
    title: 'acme/web#7: Fix the login',
    origin: { source: 'github' },
    destinations: [ANCHOR],
    requester: { platform: 'github', id: 'stranger' },
    ...(checkRequester && { checkRequester }),
  },
});
const cancel = (key: string): TriggerInput => ({
  kind: 'cancel',
  key,
  source: 'github',
  anchor: ANCHOR,
  payload: { requester: { platform: 'github', id: 'stranger' }, checkRequester: true },
});

/** A check answering from `answers` by requester id, counting the questions. */
function check(answers: Record<string, string | undefined | Error>, owed: (trigger: StoredTrigger) => NewOutboxRow[] = () => []) {
  const asked: string[] = [];
  const requesterCheck: RequesterCheck = {
    refusal: async (trigger) => {
      const id = trigger.payload.requester?.id ?? '';
      asked.push(id);
      const answer = answers[id];
      if (answer instanceof Error) throw answer;
      return answer;
    },
    owedOnceCleared: owed,
  };
  return { asked, requesterCheck };
}

const outboxKeys = async () => (await world.store.outbox.list()).map((row) => row.key);
const runs = () => world.emulator.engine.list({}).runs;

describe('a requester the edge could not clear', () => {
  it('is owed nothing when stored; once the surface clears them, the received message and the surface’s marks, then the run', async () => {
    const { asked, requesterCheck } = check({ stranger: undefined }, (trigger) => [
      { key: `seen:${trigger.key}`, destination: trigger.anchor, kind: 'seen', payload: { kind: 'seen' } },
    ]);
    expect(await service.submit(start('T1'), { alsoOwed: [{ key: 'seen:T1', destination: ANCHOR, kind: 'seen', payload: { kind: 'seen' } }] })).toMatchObject({
      accepted: true,
    });
    expect(await outboxKeys()).toEqual([]);
    expect(await worker({ github: requesterCheck }).drain()).toBe(1);
    expect(asked).toEqual(['stranger']);
    expect(runs()).toHaveLength(1);
    expect(await outboxKeys()).toEqual(expect.arrayContaining([`received:T1:${ANCHOR}`, 'seen:T1']));
  });

  it('refused: nothing runs, nobody is told, the log says why', async () => {
    const { requesterCheck } = check({ stranger: 'stranger has read access to acme/web, not write' });
    await service.submit(start('T2'));
    await service.submit(cancel('T3'));
    expect(await worker({ github: requesterCheck }).drain()).toBe(2);
    expect(runs()).toEqual([]);
    expect(await outboxKeys()).toEqual([]);
    expect(await world.store.triggers.getByKey('T2')).toMatchObject({ state: 'ignored', lastError: 'not allowed' });
    expect(logger.lines.filter((line) => line.msg === 'request ignored: its requester may not act there').map((line) => line.fields['reason'])).toEqual([
      'stranger has read access to acme/web, not write',
      'stranger has read access to acme/web, not write',
    ]);
  });

  it('a source that registered no check clears nobody; a trigger that needs no check is not asked about', async () => {
    const { asked, requesterCheck } = check({});
    await service.submit(start('T4'));
    expect(await worker().drain()).toBe(1);
    expect(await world.store.triggers.getByKey('T4')).toMatchObject({ state: 'ignored' });
    await service.submit({
      ...start('T5', false),
      anchor: 'github:acme/web#8',
      payload: { ...start('T5', false).payload, destinations: ['github:acme/web#8'] },
    } as TriggerInput);
    expect(await worker({ github: requesterCheck }).drain()).toBe(1);
    expect(asked).toEqual([]);
    expect(runs()).toHaveLength(1);
  });

  it('a surface that cannot be asked: asked again within the retry window, then given up without a word', async () => {
    const { asked, requesterCheck } = check({ stranger: new Error('GitHub is down') });
    await service.submit(start('T6'));
    const one = worker({ github: requesterCheck });
    expect(await one.drain()).toBe(1);
    expect(await world.store.triggers.getByKey('T6')).toMatchObject({ state: 'pending', lastError: 'could not ask github whether the requester may act' });
    for (let i = 0; i < 20 && (await world.store.triggers.getByKey('T6'))?.state === 'pending'; i++) {
      await world.clock.advance(60_000);
      await one.drain();
    }
    expect(asked.length).toBeGreaterThan(1);
    expect(await world.store.triggers.getByKey('T6')).toMatchObject({ state: 'failed' });
    expect(runs()).toEqual([]);
    expect(await outboxKeys()).toEqual([]);
  });
});
