import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGitlab, type FakeGitlab } from '../../test/fakes/gitlab-api.js';
import { GITLAB_IDS } from '../../test/fixtures/gitlab/index.js';
import type { OutboxMessage, RunSnapshot } from '../core/ports/messages.js';
import { NotifierError, type Delivery } from '../core/ports/notifier.js';
import { PERSON_IDS } from '../surface-list.js';
import { fetchGitlabApi } from './gitlab-api.js';
import { GitlabNotifier, defuseMentions, keyMarker } from './gitlab-notifier.js';

const TOKEN = 'glpat-notifier-test-0123456789abcdef';
const PROJECT = GITLAB_IDS.project.path;
const { alice } = GITLAB_IDS.people;
let gitlab: FakeGitlab;
let notifier: GitlabNotifier;
let next = 0;

beforeAll(async () => {
  gitlab = await startFakeGitlab({ token: TOKEN, projects: [{ id: GITLAB_IDS.project.id, path_with_namespace: PROJECT }] });
  notifier = new GitlabNotifier({ api: fetchGitlabApi({ url: gitlab.url, token: TOKEN }), selfId: gitlab.me.id, handle: '@agent', people: PERSON_IDS });
});
afterAll(() => gitlab.close());

function newIssue(): { iid: number; place: string } {
  next += 1;
  gitlab.addIssue({ project: PROJECT, iid: next, title: 'T', description: null, labels: [], state: 'opened', author: alice });
  return { iid: next, place: `gitlab:${PROJECT}#${next}` };
}
const results = new Map<string, unknown>();
async function send(key: string, destination: string, message: OutboxMessage, attempt = 0): Promise<unknown> {
  const delivery: Delivery = { key, destination, message, attempt, resultOf: async (k) => results.get(k) };
  const result = await notifier.deliver(delivery);
  results.set(key, result);
  return result;
}
const run = (state: string, extra: Partial<RunSnapshot> = {}): RunSnapshot => ({ runId: 'run_1', title: 'acme/web#1: T', state, pullRequests: [], ...extra });
const notes = (iid: number) => gitlab.notes(PROJECT, 'Issue', iid);

describe('GitlabNotifier', () => {
  it('posts the start note once — a start sent again after a lost answer finds it — and edits it at each state', async () => {
    const { iid, place } = newIssue();
    const received = `received:t1:${place}`;
    await send(received, place, { kind: 'received', title: 'acme/web#1: T', requester: 'alice' });
    await send(received, place, { kind: 'received', title: 'acme/web#1: T', requester: 'alice' }, 1);
    expect(notes(iid)).toHaveLength(1);
    expect(notes(iid)[0]?.body).toContain(keyMarker(received));
    await send(`run:run_1:1:${place}:status`, place, { kind: 'status', run: run('INPROGRESS'), receivedKey: received });
    expect(notes(iid)).toHaveLength(1);
    expect(notes(iid)[0]?.body).toContain('INPROGRESS');
  });

  it('the end is one new note with the merge request, however often it is sent', async () => {
    const { iid, place } = newIssue();
    const mr = `${gitlab.url}/${PROJECT}/-/merge_requests/5`;
    const message: OutboxMessage = { kind: 'announce', run: run('SUCCEEDED', { pullRequests: [mr] }), receivedKey: `received:t:${place}` };
    await send(`run:run_1:3:${place}:announce`, place, message);
    await send(`run:run_1:3:${place}:announce`, place, message, 1);
    expect(notes(iid)).toHaveLength(1);
    expect(notes(iid)[0]?.body).toContain(mr);
  });

  it('eyes on receipt and rocket once taken, on the note of the reference; a crash between the award and its record awards once', async () => {
    const { iid, place } = newIssue();
    const note = gitlab.addNote(PROJECT, 'Issue', iid, '@agent more', alice);
    const reference = { project: PROJECT, kind: 'issues', iid, note: note.id, userId: alice.id };
    expect(await send('seen:k', place, { kind: 'seen', reference })).toEqual({ awarded: true });
    expect(await send('seen:k', place, { kind: 'seen', reference }, 1)).toEqual({ awarded: true });
    await send('accepted:k', place, { kind: 'followup_accepted', runId: 'run_1', reference });
    expect(gitlab.awards.filter((award) => award.noteId === note.id).map((award) => award.name)).toEqual(['eyes', 'rocket']);
    // A note deleted since: nothing more is owed.
    expect(await send('seen:gone', place, { kind: 'seen', reference: { ...reference, note: 999_999 } })).toEqual({ awarded: false });
  });

  it('writes on a run’s merge request under merge_requests/:iid: a status note for a place joined late, a heard notice, and emoji on a review note', async () => {
    const iid = 300 + next;
    gitlab.addMergeRequest({
      project: PROJECT,
      iid,
      title: 'Fix',
      description: null,
      state: 'opened',
      source_branch: 'f',
      target_branch: 'main',
      author: alice,
    });
    const place = `gitlab:${PROJECT}!${iid}`;
    const status = (await send('status:mr', place, { kind: 'status', receivedKey: 'received:never-sent', run: run('INPROGRESS') })) as { noteId: number };
    await send('heard:mr', place, { kind: 'notice', text: 'Slack user ada sent the run a reply from Slack.' });
    const review = gitlab.addNote(PROJECT, 'MergeRequest', iid, 'rename this', alice);
    const reference = { project: PROJECT, kind: 'merge_requests', iid, note: review.id, userId: alice.id };
    await send('seen:mr', place, { kind: 'seen', reference });
    await send('accepted:mr', place, { kind: 'followup_accepted', runId: 'run_1', reference });
    const ours = gitlab.notes(PROJECT, 'MergeRequest', iid).filter((note) => note.author.id === gitlab.me.id);
    expect(ours.map((note) => note.id)).toContain(status.noteId);
    expect(ours.some((note) => note.body.includes('INPROGRESS'))).toBe(true);
    expect(ours.some((note) => note.body.includes('Slack user ada sent the run a reply from Slack.'))).toBe(true);
    expect(gitlab.awards.filter((award) => award.noteId === review.id).map((award) => award.name)).toEqual(['eyes', 'rocket']);
    expect(gitlab.callsTo('createIssueNote').some((call) => call.rawPath.includes(`/issues/${iid}/`))).toBe(false);
  });

  it('foreign @names mention no one but our handle; a destination that is no GitLab place is a permanent error', async () => {
    expect(defuseMentions('ask @alice and @group/team, then @agent', '@agent')).toBe('ask @\u2060alice and @\u2060group/team, then @agent');
    expect(defuseMentions('see [x](<https://gitlab.example.com/@alice>)', '@agent')).toBe('see [x](<https://gitlab.example.com/@alice>)');
    const error = await send('k', 'github:acme/web#1', { kind: 'notice', text: 'x' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NotifierError);
    expect((error as NotifierError).retryable).toBe(false);
  });
});
