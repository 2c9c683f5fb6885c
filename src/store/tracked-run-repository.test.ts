import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunObservation, Store } from '../core/ports/store.js';
import { aRun, aTrigger, anOutboxRow } from '../../test/store/helpers.js';
import { describeEachStore } from '../../test/store/adapters.js';

describeEachStore((adapter) => {
  let store: Store;
  beforeEach(async () => {
    store = await adapter.open();
  });
  afterEach(async () => {
    await store.close();
  });

  function seen(state: string, tracked = true): RunObservation {
    return { state, serverUpdatedAt: '2025-01-01T00:00:00Z', sessionLink: 'https://example.test/s/1', tracked };
  }

  describe('runs.insert and get', () => {
    it('keeps the trace of the intake span that started a run (migration 17)', async () => {
      await store.trackedRuns.insert({ ...aRun('r1'), traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' }, 100);
      expect((await store.trackedRuns.get('r1'))?.traceparent).toBe('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    });

    it('stores a run once, tracked, at transition 0', async () => {
      expect(await store.trackedRuns.insert(aRun('r1'), 100)).toBe(true);
      expect(await store.trackedRuns.insert(aRun('r1', { title: 'other' }), 200)).toBe(false);
      expect(await store.trackedRuns.get('r1')).toEqual({
        runId: 'r1',
        anchor: 'slack:C1:1700.1',
        source: 'slack',
        title: 'Fix the build',
        route: { config: { name: 'slack' } },
        destinations: ['slack:C1:1700.1'],
        triggerKey: 'Ev1',
        state: 'QUEUED',
        serverUpdatedAt: null,
        sessionLink: null,
        transition: 0,
        workflowMoves: [],
        tracked: true,
        lastSeenAt: null,
        createdAt: 100,
        updatedAt: 100,
        traceparent: null,
      });
      expect(await store.trackedRuns.get('nope')).toBeUndefined();
      expect(await store.trackedRuns.countTracked()).toBe(1);
    });
  });

  describe('runs.getMany', () => {
    it('reads the runs that exist among the ids in one call, tracked or not, each as get reads it', async () => {
      await store.trackedRuns.insert(aRun('r1'), 100);
      await store.trackedRuns.insert(aRun('r2', { personalKeyOwner: 'U_ANN' }), 100);
      await store.trackedRuns.insert(aRun('r3'), 100);
      await store.trackedRuns.recordTransition('r3', 0, seen('SUCCEEDED', false), [], 200);
      const found = await store.trackedRuns.getMany(['r3', 'nope', 'r1', 'r2', "r1' OR 1=1 --"]);
      expect(found.map((run) => run.runId).sort()).toEqual(['r1', 'r2', 'r3']);
      for (const run of found) expect(run).toEqual(await store.trackedRuns.get(run.runId));
      expect(await store.trackedRuns.getMany([])).toEqual([]);
    });
  });

  describe('runs.personalKeyOwner and listActiveKeyOwners', () => {
    it('keeps whose key created a run, and lists each owner of a tracked run once', async () => {
      await store.trackedRuns.insert(aRun('r_service'), 100);
      await store.trackedRuns.insert(aRun('r_ann1', { personalKeyOwner: 'U_ANN' }), 100);
      await store.trackedRuns.insert(aRun('r_ann2', { personalKeyOwner: 'U_ANN' }), 100);
      await store.trackedRuns.insert(aRun('r_bob', { personalKeyOwner: 'U_BOB' }), 100);
      await store.trackedRuns.insert(aRun('r_cy', { personalKeyOwner: 'U_CY' }), 100);
      expect((await store.trackedRuns.get('r_ann1'))?.personalKeyOwner).toBe('U_ANN');
      expect(await store.trackedRuns.get('r_service')).not.toHaveProperty('personalKeyOwner');
      expect(await store.trackedRuns.listActiveKeyOwners()).toEqual(['U_ANN', 'U_BOB', 'U_CY']);

      // Cy's only run ends: Cy's key has nothing left to list. Ann still has one run tracked.
      await store.trackedRuns.recordTransition('r_cy', 0, seen('SUCCEEDED', false), [], 200);
      await store.trackedRuns.recordTransition('r_ann1', 0, seen('SUCCEEDED', false), [], 200);
      expect(await store.trackedRuns.listActiveKeyOwners()).toEqual(['U_ANN', 'U_BOB']);
      // A follow-up revives Cy's run: listed again.
      await store.trackedRuns.retrack('r_cy', 300);
      expect(await store.trackedRuns.listActiveKeyOwners()).toEqual(['U_ANN', 'U_BOB', 'U_CY']);
    });

    it('lists the tracked runs of one key owner, oldest first, within the limit', async () => {
      await store.trackedRuns.insert(aRun('r_ann_old', { personalKeyOwner: 'U_ANN' }), 100);
      await store.trackedRuns.insert(aRun('r_bob', { personalKeyOwner: 'U_BOB' }), 150);
      await store.trackedRuns.insert(aRun('r_service'), 160);
      await store.trackedRuns.insert(aRun('r_ann_new', { personalKeyOwner: 'U_ANN' }), 200);
      await store.trackedRuns.insert(aRun('r_ann_ended', { personalKeyOwner: 'U_ANN' }), 300);
      await store.trackedRuns.recordTransition('r_ann_ended', 0, seen('SUCCEEDED', false), [], 400);
      const ids = async (owner: string, limit: number) => (await store.trackedRuns.listTrackedByKeyOwner(owner, limit)).map((run) => run.runId);
      expect(await ids('U_ANN', 10)).toEqual(['r_ann_old', 'r_ann_new']);
      expect(await ids('U_ANN', 1)).toEqual(['r_ann_old']);
      expect(await ids('U_BOB', 10)).toEqual(['r_bob']);
      expect(await ids('U_NOBODY', 10)).toEqual([]);
    });

    it('stores the owner of a run created by finishing a trigger', async () => {
      const { trigger } = await store.triggers.enqueue({ trigger: aTrigger({ key: 'Ev_owner' }), now: 0 });
      const claimed = await store.triggers.claimNext('w1', 10, 60_000);
      expect(claimed?.id).toBe(trigger.id);
      const run = aRun('r_from_trigger', { triggerKey: 'Ev_owner', personalKeyOwner: 'U_ANN' });
      expect(await store.triggers.finish(trigger.id, 'w1', { state: 'done', runId: run.runId }, { run }, 20)).toBe(true);
      expect((await store.trackedRuns.get('r_from_trigger'))?.personalKeyOwner).toBe('U_ANN');
      expect(await store.trackedRuns.listActiveKeyOwners()).toEqual(['U_ANN']);
    });
  });

  describe('runs.recordWorkflowMove', () => {
    it('remembers each move once, with the run; an unknown run records nothing', async () => {
      await store.trackedRuns.insert(aRun('run_m'), 100);
      expect(await store.trackedRuns.recordWorkflowMove('run_m', 'started', 200)).toBe(true);
      expect(await store.trackedRuns.recordWorkflowMove('run_m', 'started', 300)).toBe(false);
      expect(await store.trackedRuns.recordWorkflowMove('run_m', 'pull_request', 400)).toBe(true);
      expect(await store.trackedRuns.recordWorkflowMove('nope', 'started', 400)).toBe(false);
      expect((await store.trackedRuns.get('run_m'))?.workflowMoves).toEqual(['started', 'pull_request']);
    });
  });

  describe('runs.addDestination', () => {
    it('adds each place once, after the others; an unknown run changes nothing', async () => {
      await store.trackedRuns.insert({ ...aRun('run_d'), destinations: ['linear:issue-1'] }, 100);
      expect(await store.trackedRuns.addDestination('run_d', 'slack:C1:1700.1', 200)).toBe(true);
      expect(await store.trackedRuns.addDestination('run_d', 'slack:C1:1700.1', 300)).toBe(false);
      expect(await store.trackedRuns.addDestination('run_d', 'linear:issue-1', 300)).toBe(false);
      expect(await store.trackedRuns.addDestination('nope', 'slack:C1:1700.1', 300)).toBe(false);
      expect((await store.trackedRuns.get('run_d'))?.destinations).toEqual(['linear:issue-1', 'slack:C1:1700.1']);
    });
  });

  describe('runs.recordTransition', () => {
    it('writes the observation and its outbox rows when the transition matches', async () => {
      await store.trackedRuns.insert(aRun('r1'), 0);
      expect(await store.trackedRuns.recordTransition('r1', 0, seen('INPROGRESS'), [anOutboxRow('r1:1:slack')], 10)).toBe(true);
      expect(await store.trackedRuns.get('r1')).toMatchObject({
        state: 'INPROGRESS',
        serverUpdatedAt: '2025-01-01T00:00:00Z',
        sessionLink: 'https://example.test/s/1',
        transition: 1,
        tracked: true,
        lastSeenAt: 10,
        updatedAt: 10,
      });
      expect((await store.outbox.list()).map((r) => r.key)).toEqual(['r1:1:slack']);
    });

    it('is a compare-and-set: a stale transition changes nothing', async () => {
      await store.trackedRuns.insert(aRun('r1'), 0);
      expect(await store.trackedRuns.recordTransition('r1', 0, seen('INPROGRESS'), [anOutboxRow('r1:1:slack')], 10)).toBe(true);
      const before = await store.trackedRuns.get('r1');
      expect(await store.trackedRuns.recordTransition('r1', 0, seen('SUCCEEDED', false), [anOutboxRow('other')], 20)).toBe(false);
      expect(await store.trackedRuns.get('r1')).toEqual(before);
      expect((await store.outbox.list()).map((r) => r.key)).toEqual(['r1:1:slack']);
      expect(await store.trackedRuns.recordTransition('unknown', 0, seen('QUEUED'), [anOutboxRow('x')], 20)).toBe(false);
    });

    it('stops tracking at the end, and a follow-up tracks the run again', async () => {
      await store.trackedRuns.insert(aRun('r1'), 0);
      await store.trackedRuns.recordTransition('r1', 0, seen('SUCCEEDED', false), [], 10);
      expect(await store.trackedRuns.get('r1')).toMatchObject({ tracked: false, transition: 1 });
      expect(await store.trackedRuns.countTracked()).toBe(0);
      await store.trackedRuns.retrack('r1', 20);
      await store.trackedRuns.retrack('unknown', 20);
      expect(await store.trackedRuns.get('r1')).toMatchObject({ tracked: true, transition: 1, updatedAt: 20 });
      expect(await store.trackedRuns.recordTransition('r1', 1, seen('INPROGRESS'), [], 30)).toBe(true);
      expect((await store.trackedRuns.get('r1'))?.transition).toBe(2);
    });
  });

  describe('runs listings', () => {
    beforeEach(async () => {
      for (const id of ['r3', 'r1', 'r5', 'r2', 'r4']) await store.trackedRuns.insert(aRun(id), 0);
      await store.trackedRuns.recordTransition('r5', 0, seen('SUCCEEDED', false), [], 1); // untracked
    });

    it('pages tracked runs in run id order', async () => {
      expect((await store.trackedRuns.listTracked({ limit: 2 })).map((r) => r.runId)).toEqual(['r1', 'r2']);
      expect((await store.trackedRuns.listTracked({ limit: 2, afterRunId: 'r2' })).map((r) => r.runId)).toEqual(['r3', 'r4']);
      expect((await store.trackedRuns.listTracked({ limit: 2, afterRunId: 'r4' })).map((r) => r.runId)).toEqual([]);
      expect(await store.trackedRuns.countTracked()).toBe(4);
    });

    it('lists tracked runs in other states, oldest seen first', async () => {
      await store.trackedRuns.recordTransition('r1', 0, seen('WAITING_FOR_SOMETHING_NEW'), [], 50);
      await store.trackedRuns.recordTransition('r2', 0, seen('INPROGRESS'), [], 40);
      await store.trackedRuns.recordTransition('r3', 0, seen('BLOCKED'), [], 30);
      const others = await store.trackedRuns.listTrackedNotInStates(['QUEUED', 'INPROGRESS'], 10);
      expect(others.map((r) => r.runId)).toEqual(['r3', 'r1']);
      expect((await store.trackedRuns.listTrackedNotInStates([], 10)).map((r) => r.runId)).toEqual(['r4', 'r3', 'r2', 'r1']);
      expect(await store.trackedRuns.listTrackedNotInStates(['QUEUED', 'INPROGRESS'], 1)).toHaveLength(1);
    });

    it('touches runs in one go and lists stale ones, never seen first', async () => {
      await store.trackedRuns.touch(['r1', 'r2', 'unknown'], 100);
      await store.trackedRuns.touch(['r3'], 200);
      await store.trackedRuns.touch([], 300);
      expect((await store.trackedRuns.get('r1'))?.lastSeenAt).toBe(100);
      expect((await store.trackedRuns.get('r1'))?.updatedAt).toBe(0); // seen is not a change
      expect((await store.trackedRuns.listStale(150, 10)).map((r) => r.runId)).toEqual(['r4', 'r1', 'r2']);
      expect((await store.trackedRuns.listStale(100, 10)).map((r) => r.runId)).toEqual(['r4']);
      expect((await store.trackedRuns.listStale(1000, 2)).map((r) => r.runId)).toEqual(['r4', 'r1']);
    });
  });

  describe('destinations (migration 0002)', () => {
    it('keeps the list of destinations of a run', async () => {
      const store = await adapter.open();
      await store.trackedRuns.insert(aRun('run_d', { destinations: ['slack:C9:1.2', 'linear:ENG-42'] }), 1);
      expect((await store.trackedRuns.get('run_d'))?.destinations).toEqual(['slack:C9:1.2', 'linear:ENG-42']);
      await store.close();
    });
  });

  describe('runs.listTrackedByAnchorPrefix', () => {
    it('lists one channel’s tracked runs, newest first, treating % and _ literally', async () => {
      const store = await adapter.open();
      await store.trackedRuns.insert(aRun('r1', { anchor: 'slack:C1:1.1' }), 1);
      await store.trackedRuns.insert(aRun('r2', { anchor: 'slack:C1:2.2' }), 2);
      await store.trackedRuns.insert(aRun('r3', { anchor: 'slack:C10:3.3' }), 3);
      await store.trackedRuns.insert(aRun('r4', { anchor: 'slack:C_:4.4' }), 4);
      await store.trackedRuns.recordTransition('r1', 0, { state: 'SUCCEEDED', serverUpdatedAt: null, sessionLink: null, tracked: false }, [], 5);
      await store.trackedRuns.insert(aRun('r5', { anchor: 'slack:C1:5.5' }), 6);
      expect((await store.trackedRuns.listTrackedByAnchorPrefix('slack:C1:', 10)).map((run) => run.runId)).toEqual(['r5', 'r2']);
      expect((await store.trackedRuns.listTrackedByAnchorPrefix('slack:C_:', 10)).map((run) => run.runId)).toEqual(['r4']);
      await store.close();
    });
  });

  describe('runs.findBySessionLink', () => {
    it('finds the newest run with exactly that link, tracked or not', async () => {
      await store.trackedRuns.insert(aRun('r1', { sessionLink: 'https://example.test/s/1' }), 1);
      await store.trackedRuns.insert(aRun('r2', { sessionLink: 'https://example.test/s/2' }), 2);
      await store.trackedRuns.recordTransition(
        'r2',
        0,
        { state: 'SUCCEEDED', serverUpdatedAt: null, sessionLink: 'https://example.test/s/2', tracked: false },
        [],
        3,
      );
      expect((await store.trackedRuns.findBySessionLink('https://example.test/s/2'))?.runId).toBe('r2');
      expect((await store.trackedRuns.findBySessionLink('https://example.test/s/1'))?.runId).toBe('r1');
      expect(await store.trackedRuns.findBySessionLink('https://example.test/s/')).toBeUndefined();
      expect(await store.trackedRuns.findBySessionLink('https://example.test/s/%')).toBeUndefined();
    });
  });
});
