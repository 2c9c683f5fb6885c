import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGitlab, type FakeGitlab } from '../../test/fakes/gitlab-api.js';
import { GITLAB_IDS } from '../../test/fixtures/gitlab/index.js';
import { fetchGitlabApi, gitlabError, GitlabCallError } from './gitlab-api.js';

const TOKEN = 'glpat-api-test-0123456789abcdef';
const PROJECT = GITLAB_IDS.nested.path;
const { alice } = GITLAB_IDS.people;

let gitlab: FakeGitlab;
beforeAll(async () => {
  gitlab = await startFakeGitlab({ token: TOKEN, projects: [{ id: GITLAB_IDS.nested.id, path_with_namespace: PROJECT }] });
  gitlab.addIssue({ project: PROJECT, iid: 3, title: 'Speed up', description: 'It is slow.', labels: [], state: 'opened', author: alice });
});
afterAll(() => gitlab.close());

const api = () => fetchGitlabApi({ url: gitlab.url, token: TOKEN });

describe('the GitLab client (a typed fetch over REST v4)', () => {
  it('writes, edits and finds our notes on a project in a subgroup, with the token in PRIVATE-TOKEN', async () => {
    const me = await api().currentUser();
    expect(me).toEqual({ id: gitlab.me.id, username: gitlab.me.username });
    gitlab.addNote(PROJECT, 'Issue', 3, 'a person writes <!-- agent-bridge:k1 -->', alice);
    const { id } = await api().createNote(PROJECT, 'issues', 3, 'Received <!-- agent-bridge:k1 -->');
    await api().editNote(PROJECT, 'issues', 3, id, 'Working <!-- agent-bridge:k1 -->');
    // Only our own note holding the marker counts: a person may quote it.
    expect(await api().findNote(PROJECT, 'issues', 3, '<!-- agent-bridge:k1 -->', me.id)).toBe(id);
    expect(await api().findNote(PROJECT, 'issues', 3, '<!-- agent-bridge:k2 -->', me.id)).toBeUndefined();
    expect(gitlab.callsTo('createIssueNote')[0]).toMatchObject({ rawPath: '/api/v4/projects/acme%2Fplatform%2Fapi/issues/3/notes', auth: 'private-token' });
    const issue = await api().issue(PROJECT, 3, 10);
    expect(issue).toMatchObject({ title: 'Speed up', description: 'It is slow.', url: `${gitlab.url}/${PROJECT}/-/issues/3` });
    expect(issue.notes.map((note) => note.body)).toEqual(['a person writes <!-- agent-bridge:k1 -->', 'Working <!-- agent-bridge:k1 -->']);
  });

  it('reads a job’s log as text, only its last bytes however long, and says a 403 as GitLab did; notes on a merge request under its path', async () => {
    const long = Array.from({ length: 20_000 }, (_, i) => `line ${i}`).join('\n');
    const jobs = [
      { id: 71, name: 'unit', stage: 'test', status: 'failed' as const, trace: long },
      { id: 72, name: 'secret', stage: 'test', status: 'failed' as const, traceForbidden: true },
    ];
    gitlab.addPipeline({ project: PROJECT, id: 900, status: 'failed', ref: 'main', sha: 'abc', jobs });
    const tail = await api().jobTrace(PROJECT, 71, 100);
    expect(Buffer.byteLength(tail)).toBe(100);
    expect(long.endsWith(tail)).toBe(true);
    expect(gitlab.callsTo('getJobTrace')[0]).toMatchObject({ rawPath: '/api/v4/projects/acme%2Fplatform%2Fapi/jobs/71/trace', status: 200 });
    await expect(api().jobTrace(PROJECT, 72, 100)).rejects.toMatchObject({ status: 403 });
    gitlab.addMergeRequest({
      project: PROJECT,
      iid: 4,
      title: 'Fix',
      description: null,
      state: 'opened',
      source_branch: 'fix',
      target_branch: 'main',
      author: alice,
    });
    const person = gitlab.addNote(PROJECT, 'MergeRequest', 4, 'rename this', alice);
    const { id } = await api().createNote(PROJECT, 'merge_requests', 4, 'The merge request was merged.');
    await api().award(PROJECT, 'merge_requests', 4, person.id, 'rocket');
    expect(gitlab.notes(PROJECT, 'MergeRequest', 4).map((note) => note.id)).toEqual([person.id, id]);
    expect(gitlab.callsTo('awardMergeRequestNote')[0]?.rawPath).toBe(`/api/v4/projects/acme%2Fplatform%2Fapi/merge_requests/4/notes/${person.id}/award_emoji`);
  });

  it('awards an emoji once: a second award is GitLab’s 404, as for a note that is gone', async () => {
    const note = gitlab.addNote(PROJECT, 'Issue', 3, '@agent go', alice);
    await api().award(PROJECT, 'issues', 3, note.id, 'eyes');
    const again = await api()
      .award(PROJECT, 'issues', 3, note.id, 'eyes')
      .catch((caught: unknown) => caught);
    expect((again as GitlabCallError).status).toBe(404);
    expect(gitlab.awards.filter((award) => award.noteId === note.id).map((award) => award.name)).toEqual(['eyes']);
  });

  describe('a user’s confirmed email', () => {
    const grace = { id: 8_801, username: 'Grace.Hopper', name: 'Grace Hopper', email: 'grace@corp.example', public_email: 'grace@example.com' };
    const quiet = { id: 8_802, username: 'quiet', name: 'Quiet Person', email: 'quiet@corp.example' };
    const fresh = { id: 8_803, username: 'fresh', name: 'Fresh Person', email: 'fresh@corp.example', confirmed: false, public_email: 'fresh@example.com' };

    it.each([
      ['the public email, found by username in any case', 'grace.hopper', false, 'grace@example.com'],
      ['nothing when the user chose no public email', 'quiet', false, undefined],
      ['nothing for a username nobody has', 'nobody', false, undefined],
      ['the primary email when the token is an administrator’s', 'grace.hopper', true, 'grace@corp.example'],
      ['the public email when the primary is not confirmed yet', 'fresh', true, 'fresh@example.com'],
    ])('%s', async (_what, username, admin, email) => {
      const instance = await startFakeGitlab({ token: TOKEN, admin });
      try {
        for (const user of [grace, quiet, fresh]) instance.addUser(user);
        expect(await fetchGitlabApi({ url: instance.url, token: TOKEN }).userEmail(username)).toBe(email);
      } finally {
        await instance.close();
      }
    });
  });

  it.each([
    [429, true],
    [500, true],
    [503, true],
    [404, false],
  ])('a %i is a GitlabCallError without the token, retried by the outbox: %s', async (status, retryable) => {
    gitlab.failNext('createIssueNote', { status, echo: true, retryAfter: 7 });
    const error = await api()
      .createNote(PROJECT, 'issues', 3, 'x')
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GitlabCallError);
    expect((error as GitlabCallError).status).toBe(status);
    expect(String((error as Error).message)).not.toContain(TOKEN);
    const mapped = gitlabError(error, 'post');
    expect(mapped.retryable).toBe(retryable);
    if (status === 429) expect(mapped.retryAfterMs).toBe(7_000);
  });

  it('a token GitLab refuses is a 401 without the token; no answer is retryable', async () => {
    const refused = await fetchGitlabApi({ url: gitlab.url, token: 'glpat-wrong-0123456789abcdef' })
      .currentUser()
      .catch((caught: unknown) => caught);
    expect((refused as GitlabCallError).status).toBe(401);
    const nobody = await fetchGitlabApi({ url: 'http://127.0.0.1:9', token: TOKEN })
      .currentUser()
      .catch((caught: unknown) => caught);
    expect(gitlabError(nobody, 'read').retryable).toBe(true);
    expect(String((nobody as Error).message)).not.toContain(TOKEN);
  });
});
