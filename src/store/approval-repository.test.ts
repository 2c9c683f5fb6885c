import { afterEach, beforeEach, expect, it } from 'vitest';
import type { NewApproval, Store } from '../core/ports/store.js';
import { describeEachStore } from '../../test/store/adapters.js';

const HOUR = 3_600_000;
const held = (id: string, heldAt = 1_000): NewApproval => ({
  id,
  trigger: {
    kind: 'start',
    key: id,
    source: 'slack',
    anchor: 'slack:C1:1.1',
    payload: { prompt: 'p', title: 't', origin: { source: 'slack' }, destinations: ['slack:C1:1.1'] },
  },
  approvers: ['U0LEAD1', 'U0LEAD2'],
  route: 'prod',
  heldAt,
  expiresAt: heldAt + 24 * HOUR,
});

describeEachStore((adapter) => {
  let store: Store;
  beforeEach(async () => {
    store = await adapter.open();
  });
  afterEach(async () => {
    await store.close();
  });

  it('holds a request once and gives it back as held', async () => {
    expect(await store.approvals.hold(held('Ev1'))).toBe(true);
    expect(await store.approvals.hold({ ...held('Ev1'), route: 'other' })).toBe(false);
    expect(await store.approvals.get('Ev1')).toEqual({ ...held('Ev1'), state: 'held', decidedBy: null, decidedAt: null, startedAt: null });
    expect(await store.approvals.get('nope')).toBeUndefined();
  });

  it('lets one decision win: two approvers at once, a double click, a rejection after an approval all find it decided', async () => {
    await store.approvals.hold(held('Ev1'));
    const decisions = await Promise.all([
      store.approvals.decide('Ev1', 'approved', 'U0LEAD1', 2_000),
      store.approvals.decide('Ev1', 'approved', 'U0LEAD2', 2_000),
      store.approvals.decide('Ev1', 'approved', 'U0LEAD1', 2_001),
      store.approvals.decide('Ev1', 'rejected', 'U0LEAD2', 2_001),
    ]);
    const winners = decisions.filter((decision) => decision !== undefined);
    expect(winners).toHaveLength(1);
    expect((await store.approvals.get('Ev1'))?.state).toBe(winners[0]?.state);
    expect(await store.approvals.decide('Ev1', 'rejected', 'U0LEAD2', 3_000)).toBeUndefined();
  });

  it('decides nothing once expired; the sweep expires each due request once, the others stay held', async () => {
    await store.approvals.hold(held('Ev1', 0));
    await store.approvals.hold(held('Ev2', 10 * HOUR));
    expect(await store.approvals.decide('Ev1', 'approved', 'U0LEAD1', 24 * HOUR)).toBeUndefined();
    const [first, second] = await Promise.all([store.approvals.expireDue(25 * HOUR, 10), store.approvals.expireDue(25 * HOUR, 10)]);
    expect([...(first ?? []), ...(second ?? [])].map((approval) => [approval.id, approval.state])).toEqual([['Ev1', 'expired']]);
    expect((await store.approvals.get('Ev2'))?.state).toBe('held');
    expect(await store.approvals.expireDue(25 * HOUR, 10)).toEqual([]);
  });

  it('finds approved requests whose start was not handed over, until marked started', async () => {
    await store.approvals.hold(held('Ev1'));
    await store.approvals.hold(held('Ev2'));
    await store.approvals.decide('Ev1', 'approved', 'U0LEAD1', 2_000);
    await store.approvals.decide('Ev2', 'rejected', 'U0LEAD1', 2_000);
    expect(await store.approvals.approvedNotStarted(2_000, 10)).toEqual([]);
    expect((await store.approvals.approvedNotStarted(2_001, 10)).map((approval) => approval.id)).toEqual(['Ev1']);
    await store.approvals.markStarted('Ev1', 2_500);
    expect(await store.approvals.approvedNotStarted(9_000, 10)).toEqual([]);
    expect((await store.approvals.get('Ev1'))?.startedAt).toBe(2_500);
  });
});
