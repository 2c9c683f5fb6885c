import { afterEach, beforeEach, expect, it } from 'vitest';
import { aTrigger } from '../../test/store/helpers.js';
import type { NewTrigger, Store } from '../core/ports/store.js';
import { describeEachStore } from '../../test/store/adapters.js';

/*
 * The store's part of follow-ups sent as one (`followups: all`, core/intake/followup-batch.ts): a
 * follow-up stored due later, the later follow-ups of its anchor claimed with it in one statement,
 * ended with it in one transaction, or given back.
 */

const ANCHOR = 'slack:C1:1700.1';
const LEASE = 30_000;
const reply = (key: string, anchor = ANCHOR): NewTrigger => aTrigger({ key, kind: 'followup', anchor, payload: { message: key } });
const stop = (key: string): NewTrigger => aTrigger({ key, kind: 'cancel', payload: {} });

describeEachStore((adapter) => {
  let store: Store;
  beforeEach(async () => {
    store = await adapter.open();
  });
  afterEach(async () => {
    await store.close();
  });

  async function enqueue(trigger: NewTrigger, now: number, dueAt?: number): Promise<number> {
    return (await store.triggers.enqueue({ trigger, now, dueAt })).trigger.id;
  }
  const states = async (keys: string[]) => Promise.all(keys.map(async (key) => (await store.triggers.getByKey(key))?.state));

  it('a follow-up stored due later is not claimable before then; the default is at once', async () => {
    await enqueue(reply('Later'), 1_000, 3_000);
    await enqueue(reply('Now', 'slack:C2:1700.9'), 1_000);
    expect((await store.triggers.claimNext('w1', 1_000, LEASE))?.key).toBe('Now');
    expect(await store.triggers.claimNext('w1', 2_999, LEASE)).toBeUndefined();
    const later = await store.triggers.claimNext('w1', 3_000, LEASE);
    expect(later).toMatchObject({ key: 'Later', receivedAt: 1_000 });
  });

  it('claims the later follow-ups of the anchor, due or not, in order, up to a trigger of another kind', async () => {
    for (const [index, key] of ['R1', 'R2', 'R3'].entries()) await enqueue(reply(key), 1_000 + index, 3_000 + index);
    await enqueue(reply('Elsewhere', 'slack:C9:1.1'), 1_010, 3_010);
    await enqueue(stop('Stop'), 1_020);
    await enqueue(reply('After'), 1_030, 3_030);
    const head = await store.triggers.claimNext('w1', 3_000, LEASE);
    expect(head?.key).toBe('R1');
    const gathered = await store.triggers.claimFollowing(head!, 'w1', 3_000, LEASE, 10);
    expect(gathered.map((trigger) => [trigger.key, trigger.state, trigger.leaseOwner])).toEqual([
      ['R2', 'working', 'w1'],
      ['R3', 'working', 'w1'],
    ]);
    expect(await states(['Elsewhere', 'Stop', 'After'])).toEqual(['pending', 'pending', 'pending']);
    // Asked again (as after a crash: the same worker's claim), nothing else joins.
    expect(await store.triggers.claimFollowing(head!, 'w1', 3_000, LEASE, 10)).toEqual([]);
  });

  it('claims at most the limit', async () => {
    for (const key of ['L1', 'L2', 'L3', 'L4']) await enqueue(reply(key), 1_000);
    const head = await store.triggers.claimNext('w1', 1_000, LEASE);
    expect((await store.triggers.claimFollowing(head!, 'w1', 1_000, LEASE, 2)).map((trigger) => trigger.key)).toEqual(['L2', 'L3']);
  });

  it('ends the gathered ones with the head in one transaction, only while the owner holds the head', async () => {
    for (const key of ['E1', 'E2', 'E3']) await enqueue(reply(key), 1_000);
    const head = await store.triggers.claimNext('w1', 1_000, LEASE);
    const gathered = await store.triggers.claimFollowing(head!, 'w1', 1_000, LEASE, 10);
    const together = gathered.map((trigger) => trigger.id);
    expect(await store.triggers.finish(head!.id, 'w2', { state: 'done', runId: 'run_1' }, { together }, 2_000)).toBe(false);
    expect(await states(['E1', 'E2', 'E3'])).toEqual(['working', 'working', 'working']);
    expect(await store.triggers.finish(head!.id, 'w1', { state: 'done', runId: 'run_1' }, { together }, 2_000)).toBe(true);
    const ended = await Promise.all(['E1', 'E2', 'E3'].map((key) => store.triggers.getByKey(key)));
    expect(ended.map((trigger) => [trigger?.state, trigger?.runId, trigger?.leaseOwner])).toEqual([
      ['done', 'run_1', null],
      ['done', 'run_1', null],
      ['done', 'run_1', null],
    ]);
  });

  it('gives gathered ones back: pending, due as before, claimed again with the head', async () => {
    for (const key of ['G1', 'G2']) await enqueue(reply(key), 1_000, 3_000);
    const head = await store.triggers.claimNext('w1', 3_000, LEASE);
    const gathered = await store.triggers.claimFollowing(head!, 'w1', 3_000, LEASE, 10);
    expect(await store.triggers.release([gathered[0]!.id], 'w2', 3_100)).toBe(0);
    expect(await store.triggers.release([gathered[0]!.id], 'w1', 3_100)).toBe(1);
    expect(await store.triggers.getByKey('G2')).toMatchObject({ state: 'pending', leaseOwner: null, nextAttemptAt: 3_000 });
    // Behind its head, the given-back one is not claimable alone.
    expect(await store.triggers.claimNext('w2', 3_200, LEASE)).toBeUndefined();
    await store.triggers.reschedule(head!.id, 'w1', 5_000, 'run API busy', 3_200);
    const again = await store.triggers.claimNext('w2', 5_000, LEASE);
    expect(again?.key).toBe('G1');
    expect((await store.triggers.claimFollowing(again!, 'w2', 5_000, LEASE, 10)).map((trigger) => trigger.key)).toEqual(['G2']);
  });

  it('after a crash the next claim of the head takes the same gathered ones again', async () => {
    for (const key of ['C1', 'C2', 'C3']) await enqueue(reply(key), 1_000);
    const head = await store.triggers.claimNext('dead', 1_000, LEASE);
    await store.triggers.claimFollowing(head!, 'dead', 1_000, LEASE, 10);
    // The dead worker's lease runs out; nothing behind the head can be claimed alone meanwhile.
    expect(await store.triggers.claimNext('w2', 1_000 + LEASE - 1, LEASE)).toBeUndefined();
    const taken = await store.triggers.claimNext('w2', 1_000 + LEASE, LEASE);
    expect(taken?.key).toBe('C1');
    const gathered = await store.triggers.claimFollowing(taken!, 'w2', 1_000 + LEASE, LEASE, 10);
    expect(gathered.map((trigger) => trigger.key)).toEqual(['C2', 'C3']);
    expect(await store.triggers.finish(taken!.id, 'w2', { state: 'done', runId: 'run_2' }, { together: gathered.map((trigger) => trigger.id) }, 40_000)).toBe(
      true,
    );
    expect(await states(['C1', 'C2', 'C3'])).toEqual(['done', 'done', 'done']);
  });
});
