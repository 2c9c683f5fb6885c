import { describe, expect, it } from 'vitest';
import { useIntakeWorld } from '../../../test/core/intake-harness.js';
import { CapturingLogger } from '../../../test/core/capturing-logger.js';
import { type SqliteStore } from '../../store/sqlite-store.js';
import type { IssueLinker } from '../ports/issue-links.js';
import type { Store } from '../ports/store.js';
import type { TriggerInput } from '../ports/triggers.js';
import { IntakeService } from './intake-service.js';
import { IntakeWorker } from './intake-worker.js';
import { testSurfaces } from '../../../test/helpers/surfaces.js';

/*
 * A thread that joins an issue's active run becomes one of the run's places. The place is
 * added before the trigger is finished: a process killed right after the finish must not leave a
 * thread that was told "joined" but never hears of the run again (the finished trigger is not retried).
 */

const API_KEY = 'issue-join-test-key';
const ISSUE = 'linear:0a1b2c3d-0000-4000-8000-00000issue07';
const linker: IssueLinker = {
  lookup: async (text) =>
    text.includes('ENG-7')
      ? {
          kind: 'linked',
          issue: {
            anchor: ISSUE,
            otherAnchors: ['linear:ENG-7'],
            ref: 'ENG-7',
            title: 'Slow search',
            url: 'https://linear.app/acme/issue/ENG-7',
            context: '> ENG-7',
          },
        }
      : undefined,
};

const world = useIntakeWorld(API_KEY, { resetEach: true });

const worker = (on: Store) =>
  new IntakeWorker({
    store: on,
    runs: world.client,
    clock: world.clock,
    logger: new CapturingLogger(),
    routing: { defaults: { config: {} }, schedules: {} },
    surfaces: testSurfaces(),
    owner: 'worker-1',
    options: { retryWindowMs: 15 * 60_000 },
    issueLinkers: { slack: linker },
    random: () => 0.5,
  });

const mention = (key: string, anchor: string, prompt: string): TriggerInput => ({
  kind: 'start',
  key,
  source: 'slack',
  anchor,
  payload: {
    prompt,
    title: prompt,
    origin: { source: 'slack', channel: 'C1' },
    destinations: [anchor],
    requester: { platform: 'slack', id: 'U1', name: 'ada' },
  },
});

/** The store of a process SIGKILLed right after a trigger is finished (nothing after the finish happens). */
function killedAfterFinish(real: SqliteStore): Store {
  const triggers = Object.create(real.triggers, {
    finish: {
      value: async (...args: Parameters<Store['triggers']['finish']>) => {
        await real.triggers.finish(...args);
        throw new Error('SIGKILL right after the finish');
      },
    },
  }) as Store['triggers'];
  return Object.create(real, { triggers: { value: triggers } }) as Store;
}

describe('a thread joining an issue’s active run', () => {
  it('is one of the run’s places even when the process dies right after the trigger is finished', async () => {
    const intake = new IntakeService({ store: world.store, clock: world.clock });
    await intake.submit(mention('Ev1', 'slack:C1:1700.1', 'ENG-7 make search faster'));
    expect(await worker(world.store).drain()).toBe(1);
    const [run] = world.emulator.engine.list({}).runs;
    expect(run).toBeDefined();

    await intake.submit(mention('Ev2', 'slack:C2:1700.2', 'ENG-7 and cache the results'));
    await expect(worker(killedAfterFinish(world.store)).drain()).rejects.toThrow(/SIGKILL/);
    expect((await world.store.triggers.getByKey('Ev2'))?.state).toBe('done');
    expect(world.emulator.engine.list({}).runs).toHaveLength(1);
    expect(
      world.emulator.engine
        .followups(run!.run_id)
        .map((followup) => followup.message)
        .join('\n'),
    ).toContain('cache the results');
    expect((await world.store.trackedRuns.get(run!.run_id))?.destinations).toEqual(['slack:C1:1700.1', ISSUE, 'slack:C2:1700.2']);
  });
});
