import { describe, expect, it } from 'vitest';
import { noticeOf } from '../core/outbox/notice-parts.js';
import type { OutboxMessage, RunSnapshot } from '../core/ports/messages.js';
import { NotifierError, type Delivery } from '../core/ports/notifier.js';
import type { LinearApi } from './linear-api.js';
import { LinearNotifier, parseLinearDestination } from './linear-notifier.js';
import { OwnIds } from './own-ids.js';
import { PERSON_IDS } from '../surface-list.js';

const ids = new OwnIds('test-secret');
const idFromKey = (key: string) => ids.idFor(key);

/** An in-memory Linear: comments by id, reactions, and what was remembered as ours. */
function memoryLinear() {
  const comments = new Map<string, { issueId: string; body: string }>();
  const reactions: Array<{ id: string; commentId: string; emoji: string }> = [];
  const failures: Error[] = [];
  const api: Pick<LinearApi, 'createComment' | 'updateComment' | 'commentExists' | 'react' | 'issue'> = {
    createComment: async ({ id, issueId, body }) => {
      const failure = failures.shift();
      if (comments.has(id)) throw Object.assign(new Error('exists'), { type: 'InvalidInput' });
      comments.set(id, { issueId, body });
      // A failure after the write: the create reached Linear, the answer did not reach us.
      if (failure) throw failure;
    },
    updateComment: async (id, body) => {
      const comment = comments.get(id);
      if (!comment) throw Object.assign(new Error('not found'), { type: 'InvalidInput' });
      comment.body = body;
    },
    commentExists: async (id) => comments.has(id),
    react: async (input) => {
      if (reactions.some((reaction) => reaction.id === input.id)) throw Object.assign(new Error('exists'), { type: 'InvalidInput' });
      reactions.push(input);
    },
    issue: async (identifier) => ({ id: `uuid-of-${identifier}`, identifier, title: 't', url: 'u', comments: [] }),
  };
  const notifier = new LinearNotifier({ api: api as LinearApi, handle: '@agent', people: PERSON_IDS, ids });
  return { notifier, comments, reactions, failures };
}

const run: RunSnapshot = { runId: 'run_1', title: 'ENG-1: Fix it', state: 'INPROGRESS', sessionLink: 'https://agent.example/sessions/1', pullRequests: [] };

function delivery(key: string, message: OutboxMessage, results: Record<string, unknown> = {}, attempt = 0): Delivery {
  return { key, destination: 'linear:ENG-1', message, attempt, resultOf: async (of) => results[of] };
}

describe('LinearNotifier', () => {
  it('creates the start comment under the id of its key (recognisably ours), then edits it per state', async () => {
    const { notifier, comments } = memoryLinear();
    const received = await notifier.deliver(
      delivery('received:t1:linear:ENG-1', { kind: 'received', title: 'ENG-1: Fix it', reference: { issueId: 'issue-uuid' } }),
    );
    const id = idFromKey('received:t1:linear:ENG-1');
    expect(received).toEqual({ commentId: id, issueId: 'issue-uuid' });
    expect(ids.isOwn(id)).toBe(true);
    expect(comments.get(id)?.body).toContain('Received');

    await notifier.deliver(
      delivery('run:run_1:1:linear:ENG-1:status', { kind: 'status', run, receivedKey: 'received:t1:linear:ENG-1' }, { 'received:t1:linear:ENG-1': received }),
    );
    expect(comments.size).toBe(1);
    expect(comments.get(id)?.body).toMatch(/INPROGRESS[\s\S]*run_1[\s\S]*\[Open session\]\(<https:\/\/agent\.example\/sessions\/1>\)/);
  });

  it('a retried create whose first attempt reached Linear does not create it again', async () => {
    const { notifier, comments, failures } = memoryLinear();
    failures.push(Object.assign(new Error('late'), { type: 'NetworkError' }));
    const announce: OutboxMessage = {
      kind: 'announce',
      run: { ...run, state: 'SUCCEEDED', pullRequests: ['https://github.com/a/b/pull/1'] },
      receivedKey: 'r',
    };
    await expect(notifier.deliver(delivery('run:run_1:2:linear:ENG-1:announce', announce))).rejects.toMatchObject({ retryable: true });
    await notifier.deliver(delivery('run:run_1:2:linear:ENG-1:announce', announce, {}, 1));
    expect(comments.size).toBe(1);
    expect([...comments.values()][0]?.body).toContain('https://github.com/a/b/pull/1');
  });

  it('without a start comment to edit, a status creates one replacement and later states edit it', async () => {
    const { notifier, comments } = memoryLinear();
    await notifier.deliver(delivery('s1', { kind: 'status', run, receivedKey: 'received:lost' }));
    await notifier.deliver(delivery('s2', { kind: 'status', run: { ...run, state: 'BLOCKED' }, receivedKey: 'received:lost' }));
    expect(comments.size).toBe(1);
    expect(comments.get(idFromKey('status_of:received:lost'))?.body).toContain('BLOCKED');
  });

  it.each([
    ['BLOCKED', 'needs your input', 'Answer with a comment starting with @agent.'],
    ['FAILED', '❌', 'tests failed'],
    ['CANCELLED', 'Cancelled by Grace', ''],
  ])('announces %s in a new comment', async (state, first, second) => {
    const { notifier, comments } = memoryLinear();
    await notifier.deliver(
      delivery(`a-${state}`, { kind: 'announce', run: { ...run, state, statusText: 'tests failed' }, receivedKey: 'r', cancelledBy: 'Grace' }),
    );
    const body = [...comments.values()][0]?.body ?? '';
    expect(body).toContain(first);
    expect(body).toContain(second);
  });

  it('reacts ✉️ to the comment a follow-up came from, once', async () => {
    const { notifier, reactions } = memoryLinear();
    const accepted: OutboxMessage = { kind: 'followup_accepted', runId: 'run_1', reference: { commentId: 'c-9' } };
    expect(await notifier.deliver(delivery('f1', accepted))).toEqual({ reacted: true });
    expect(await notifier.deliver(delivery('f1', accepted, {}, 1))).toEqual({ reacted: false });
    expect(reactions).toEqual([{ id: idFromKey('f1'), commentId: 'c-9', emoji: 'incoming_envelope' }]);
  });

  it('a stop edits the start comment and reacts 🛑 to the comment that asked: no new comment', async () => {
    const { notifier, comments, reactions } = memoryLinear();
    const received = await notifier.deliver(
      delivery('received:t1:linear:ENG-1', { kind: 'received', title: 'ENG-1: Fix it', reference: { issueId: 'issue-uuid' } }),
    );
    const stopping: OutboxMessage = {
      kind: 'stopping',
      run,
      receivedKey: 'received:t1:linear:ENG-1',
      requestedBy: 'Grace',
      reference: { commentId: 'c-stop' },
    };
    expect(await notifier.deliver(delivery('stopping:t2:linear:ENG-1', stopping, { 'received:t1:linear:ENG-1': received }))).toMatchObject({ reacted: true });
    expect(comments.size).toBe(1);
    expect(comments.get(idFromKey('received:t1:linear:ENG-1'))?.body).toMatch(/State: \*\*stopping\*\* — requested by Grace \(was INPROGRESS\)[\s\S]*run_1/);
    expect(reactions).toEqual([{ id: idFromKey('stopping:t2:linear:ENG-1'), commentId: 'c-stop', emoji: 'octagonal_sign' }]);
  });

  it('posts to an issue id destination without looking the issue up; an identifier destination still resolves', async () => {
    const { notifier, comments } = memoryLinear();
    const id = '5e0c1a2b-3c4d-4e5f-8a9b-000000000042';
    await notifier.deliver({ ...delivery('n1', { kind: 'notice', text: 'hello' }), destination: `linear:${id}` });
    await notifier.deliver(delivery('n2', { kind: 'notice', text: 'hi' }));
    expect([...comments.values()].map((comment) => comment.issueId)).toEqual([id, 'uuid-of-ENG-1']);
  });

  it('a notice’s link is a Markdown link in the comment; a URL in its words stays words', async () => {
    const { notifier, comments } = memoryLinear();
    const url = 'https://github.com/Codertocat/Hello-World/pull/2';
    await notifier.deliver(delivery('n3', noticeOf(['The pull request ', { url, label: 'Codertocat/Hello-World#2' }, ' was merged (https://evil.example).'])));
    expect(comments.get(idFromKey('n3'))?.body).toBe(`The pull request [Codertocat/Hello-World#2](<${url}>) was merged \\(https\\://evil.example\\).`);
  });

  it.each([
    ['linear:ENG-12', 'ENG-12'],
    ['linear:5e0c1a2b-3c4d-4e5f-8a9b-000000000042', '5e0c1a2b-3c4d-4e5f-8a9b-000000000042'],
  ])('accepts the destination %s', (destination, issue) => {
    expect(parseLinearDestination(destination)).toBe(issue);
  });

  it.each(['linear:', 'slack:C1:1.2', 'linear:ENG', 'linear:ENG-1:extra', 'linear:5e0c1a2b-3c4d-4e5f-8a9b', 'linear-session:abc'])(
    'refuses the destination %s for good',
    (destination) => {
      expect(() => parseLinearDestination(destination)).toThrow(NotifierError);
    },
  );
});
