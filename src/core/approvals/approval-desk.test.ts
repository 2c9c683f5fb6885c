import { afterEach, describe, expect, it } from 'vitest';
import { CapturingLogger } from '../../../test/core/capturing-logger.js';
import { openSqliteStore, type SqliteStore } from '../../store/sqlite-store.js';
import type { IntakeService } from '../intake/intake-service.js';
import { TestClock } from '../ports/clock.js';
import type { NewOutboxRow } from '../ports/store.js';
import type { Requester, TriggerInput } from '../ports/triggers.js';
import { ApprovalDesk } from './approval-desk.js';

/*
 * Approvers are person ids, and a person of a chat surface other than the one whose ids stand bare is
 * `<surface>:<user id>`: a click is compared as the person who clicked, so a `talk:` approver's click
 * on their own surface decides, and someone else's does not.
 */

let store: SqliteStore;
afterEach(() => store?.close());

const REQUEST: TriggerInput = {
  kind: 'start',
  key: 'talk:msg-1',
  source: 'talk',
  anchor: 'talk:conv-1',
  payload: { prompt: 'ship it', title: 'ship it', origin: { source: 'talk' }, destinations: ['talk:conv-1'] },
};

async function deskWith(personOf?: (requester: Requester) => string | undefined) {
  store = openSqliteStore({ path: ':memory:' });
  const clock = new TestClock();
  const submitted: TriggerInput[] = [];
  const owed: NewOutboxRow[] = [];
  const intake = {
    submit: async (input: TriggerInput) => (submitted.push(input), { accepted: true }),
    owe: async (rows: NewOutboxRow[]) => void owed.push(...rows),
  } as unknown as IntakeService;
  await store.approvals.hold({
    id: REQUEST.key,
    trigger: REQUEST,
    approvers: ['talk:lead-1'],
    route: 'deploy',
    heldAt: clock.now(),
    expiresAt: clock.now() + 60_000,
  });
  const desk = new ApprovalDesk({ store, intake, clock, logger: new CapturingLogger(), ...(personOf && { personOf }) });
  return { desk, submitted, owed };
}

const talkPerson = (requester: Requester) => (requester.platform === 'talk' ? `talk:${requester.id}` : undefined);

describe('ApprovalDesk: a click is compared as the person who clicked', () => {
  it('an approver of a chat whose ids are qualified approves with their own user id, and the decision names the person', async () => {
    const { desk, submitted } = await deskWith(talkPerson);
    expect(await desk.decide(REQUEST.key, 'approve', { platform: 'talk', id: 'lead-1' }, 'talk:conv-1')).toEqual({ kind: 'decided', state: 'approved' });
    expect((await store.approvals.get(REQUEST.key))?.decidedBy).toBe('talk:lead-1');
    expect(submitted.map((input) => input.kind === 'start' && input.payload.approvedBy)).toEqual(['talk:lead-1']);
  });

  it('someone else, or the same user id on another surface, is not the approver: nothing changes', async () => {
    const { desk, submitted } = await deskWith(talkPerson);
    expect(await desk.decide(REQUEST.key, 'approve', { platform: 'talk', id: 'someone' }, 'talk:conv-1')).toMatchObject({ kind: 'not_approver' });
    expect(await desk.decide(REQUEST.key, 'approve', { platform: 'chat', id: 'lead-1' }, 'chat:C1')).toMatchObject({ kind: 'not_approver' });
    expect((await store.approvals.get(REQUEST.key))?.state).toBe('held');
    expect(submitted).toEqual([]);
  });

  it('without a reader of person ids, the user id is compared as it is (how bare ids have always been)', async () => {
    const { desk } = await deskWith();
    expect(await desk.decide(REQUEST.key, 'approve', { platform: 'talk', id: 'lead-1' }, 'talk:conv-1')).toMatchObject({ kind: 'not_approver' });
    expect(await desk.decide(REQUEST.key, 'reject', { platform: 'talk', id: 'talk:lead-1' }, 'talk:conv-1')).toEqual({ kind: 'decided', state: 'rejected' });
  });
});
