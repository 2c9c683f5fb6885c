import { afterEach, beforeEach, expect, it } from 'vitest';
import type { RunFilter, Store } from '../core/ports/store.js';
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

  /** A run started by a stored trigger of `person`, created at `at`. */
  async function runBy(runId: string, at: number, person: { platform?: string; id: string; name?: string }, overrides: Parameters<typeof aRun>[1] = {}) {
    const key = `Ev-${runId}`;
    const base = aTrigger();
    await store.triggers.enqueue({ trigger: aTrigger({ key, payload: { ...base.payload, requester: { platform: 'slack', ...person } } }), now: at });
    await store.trackedRuns.insert(aRun(runId, { triggerKey: key, ...overrides }), at);
  }

  it('lists runs newest first with who asked, in keyset pages', async () => {
    await runBy('r1', 100, { id: 'U1', name: 'Ada Lovelace' });
    await runBy('r2', 200, { id: 'U2', name: 'Grace' });
    await runBy('r3', 200, { id: 'U3' });
    const first = await store.operator.listRuns({ limit: 2 });
    expect(first.map((run) => run.runId)).toEqual(['r3', 'r2']);
    expect(first[1]?.requester).toEqual({ id: 'U2', name: 'Grace' });
    expect(first[0]?.requester).toEqual({ id: 'U3', name: null });
    const last = first[1]!;
    const second = await store.operator.listRuns({ limit: 2, after: { createdAt: last.createdAt, runId: last.runId } });
    expect(second.map((run) => run.runId)).toEqual(['r1']);
  });

  it.each([
    ['source', { source: 'linear' }, ['r2']],
    ['state', { state: 'SUCCEEDED' }, ['r3']],
    ['route name', { routeName: 'web' }, ['r2']],
    ['person by id', { person: 'U1' }, ['r1']],
    ['person by part of the name, any case', { person: 'lovel' }, ['r1']],
    ['person by the ids the console resolved it to, or the text itself', { person: 'lovel', personIds: ['U3', 'U9'] }, ['r3', 'r1']],
    ['person ids match who asked exactly (never part of an id, never the key owner)', { person: 'zz', personIds: ['U', 'U9'] }, []],
    ['no person ids: as before', { person: 'U2', personIds: [] }, ['r2']],
    ['owner: who asked, by id exactly (never part of a name or id)', { ownedBy: 'U1' }, ['r1']],
    ['owner: whose key the run runs under', { ownedBy: 'U9' }, ['r4']],
    ['owner: an id that is only part of one', { ownedBy: 'U' }, []],
    ['title text, any case', { text: 'DEPLOY' }, ['r3']],
    ['title text with LIKE characters taken literally', { text: '100%' }, ['r1']],
    ['two filters at once', { source: 'slack', text: 'deploy' }, ['r3']],
  ])('filters runs by %s', async (_name, filter, expected) => {
    await runBy('r1', 100, { id: 'U1', name: 'Ada Lovelace' }, { title: 'Fix 100% of the build' });
    await runBy('r2', 200, { id: 'U2', name: 'Grace' }, { source: 'linear', route: { config: { name: 'web' } }, title: 'Linear thing' });
    await runBy('r3', 300, { id: 'U3', name: 'Linus' }, { title: 'Deploy it', state: 'SUCCEEDED' });
    await runBy('r4', 400, { id: 'U4', name: 'Barbara' }, { title: 'Fix 100 of them', personalKeyOwner: 'U9' });
    expect((await store.operator.listRuns({ limit: 10, ...filter })).map((run) => run.runId)).toEqual(expected);
  });

  it('counts as a person’s own the runs their user asked for on their own chat, and not another platform’s user of the same id', async () => {
    const oid = '6e1c2f5a-0b1d-4c8e-9f3a-2d7b8c9e0f11';
    await runBy('r1', 100, { platform: 'teams', id: oid, name: 'Ada on Teams' });
    await runBy('r2', 200, { platform: 'linear', id: oid, name: 'A Linear user' });
    await runBy('r3', 300, { platform: 'teams', id: 'another-object-id' }, { personalKeyOwner: `teams:${oid}` });
    await runBy('r4', 400, { platform: 'console', id: `teams:${oid}` });
    const owned = (filter: RunFilter) => store.operator.listRuns({ limit: 10, ...filter }).then((runs) => runs.map((run) => run.runId));
    expect(await owned({ ownedBy: `teams:${oid}`, ownedAs: { platform: 'teams', id: oid } })).toEqual(['r4', 'r3', 'r1']);
    expect(await owned({ ownedBy: `teams:${oid}` })).toEqual(['r4', 'r3']);
  });

  it('keeps every observed state of a run with its time', async () => {
    await store.trackedRuns.insert(aRun('r1'), 100);
    const seen = (state: string) => ({ state, serverUpdatedAt: `t-${state}`, sessionLink: null, tracked: state !== 'SUCCEEDED' });
    expect(await store.trackedRuns.recordTransition('r1', 0, seen('INPROGRESS'), [], 200)).toBe(true);
    expect(await store.trackedRuns.recordTransition('r1', 0, seen('FAILED'), [], 250)).toBe(false);
    expect(await store.trackedRuns.recordTransition('r1', 1, seen('SUCCEEDED'), [], 300)).toBe(true);
    expect(await store.operator.states('r1')).toEqual([
      { transition: 0, state: 'QUEUED', serverUpdatedAt: null, observedAt: 100 },
      { transition: 1, state: 'INPROGRESS', serverUpdatedAt: 't-INPROGRESS', observedAt: 200 },
      { transition: 2, state: 'SUCCEEDED', serverUpdatedAt: 't-SUCCEEDED', observedAt: 300 },
    ]);
    expect(await store.operator.states('other')).toEqual([]);
  });

  it("finds a run's triggers: the one that started it and those that name it", async () => {
    await store.triggers.enqueue({ trigger: aTrigger({ key: 'start' }), now: 100 });
    const followup = await store.triggers.enqueue({ trigger: aTrigger({ key: 'reply', kind: 'followup' } as never), now: 110 });
    await store.triggers.enqueue({ trigger: aTrigger({ key: 'unrelated', anchor: 'slack:C2:1' }), now: 120 });
    const claimed = await store.triggers.claimNext('w', 130, 1000);
    expect(claimed?.key).toBe('start');
    await store.triggers.finish(claimed!.id, 'w', { state: 'done', runId: 'r1' }, {}, 140);
    const second = await store.triggers.claimNext('w', 150, 1000);
    expect(second?.id).toBe(followup.trigger.id);
    await store.triggers.finish(second!.id, 'w', { state: 'done', runId: 'r1' }, {}, 160);
    expect((await store.operator.triggersOfRun('r1', 'start')).map((trigger) => trigger.key)).toEqual(['start', 'reply']);
    expect((await store.operator.triggersOfRun('r9', 'unrelated')).map((trigger) => trigger.key)).toEqual(['unrelated']);
  });

  it('lists failed deliveries until retried or dismissed; retry and dismiss touch only failed rows', async () => {
    await store.outbox.add([anOutboxRow('a'), anOutboxRow('b', 'slack:C2:1'), anOutboxRow('c', 'slack:C3:1')], 100);
    for (const key of ['a', 'b']) {
      const row = await store.outbox.claimNext('w', 200, 1000);
      expect(row?.key).toBe(key);
      await store.outbox.markFailed(row!.id, 'w', 'channel_not_found', 210);
    }
    const failed = await store.operator.failedDeliveries(10);
    expect(failed.map((row) => [row.key, row.lastError])).toEqual([
      ['b', 'channel_not_found'],
      ['a', 'channel_not_found'],
    ]);
    const [b, a] = failed;
    const pendingC = await store.outbox.getByKey('c');
    expect(await store.operator.retryDelivery(pendingC!.id, 300)).toBe(false);
    expect(await store.operator.dismissDelivery(pendingC!.id, 300)).toBe(false);
    expect(await store.operator.retryDelivery(a!.id, 300)).toBe(true);
    expect(await store.operator.dismissDelivery(b!.id, 300)).toBe(true);
    expect(await store.operator.dismissDelivery(b!.id, 301)).toBe(false);
    expect(await store.operator.failedDeliveries(10)).toEqual([]);
    const retried = await store.outbox.getByKey('a');
    expect({ state: retried?.state, due: retried?.nextAttemptAt, attempts: retried?.attempts }).toEqual({ state: 'pending', due: 300, attempts: 1 });
    expect((await store.outbox.claimNext('w', 300, 1000))?.key).toBe('a');
  });

  it('lists failed triggers until retried or dismissed; a retried trigger is claimable at once', async () => {
    await store.triggers.enqueue({ trigger: aTrigger({ key: 'x' }), now: 100 });
    await store.triggers.enqueue({ trigger: aTrigger({ key: 'y', anchor: 'slack:C2:1' }), now: 100 });
    for (let i = 0; i < 2; i++) {
      const claimed = await store.triggers.claimNext('w', 200, 1000);
      await store.triggers.finish(claimed!.id, 'w', { state: 'failed', error: 'unavailable' }, {}, 210);
    }
    const failed = await store.operator.failedTriggers(10);
    expect(failed.map((trigger) => trigger.key)).toEqual(['y', 'x']);
    expect(await store.operator.retryTrigger(failed[1]!.id, 300)).toBe(true);
    expect(await store.operator.retryTrigger(failed[1]!.id, 300)).toBe(false);
    expect(await store.operator.dismissTrigger(failed[0]!.id, 300)).toBe(true);
    expect(await store.operator.failedTriggers(10)).toEqual([]);
    const again = await store.triggers.claimNext('w', 300, 1000);
    expect({ key: again?.key, attempts: again?.attempts }).toEqual({ key: 'x', attempts: 2 });
  });
});
