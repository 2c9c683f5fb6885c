import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCESS, DEFAULT_BOT, startFakeGitlab, type FakeGitlab } from './gitlab-api.js';
import { GITLAB_IDS } from '../fixtures/gitlab/index.js';

const TOKEN = 'glpat-fake-0123456789abcdef';
const NOW = Date.parse('2026-03-02T12:00:00.000Z');
const { alice, bob, rita } = GITLAB_IDS.people;
const position = {
  base_sha: GITLAB_IDS.shas.base,
  start_sha: GITLAB_IDS.shas.start,
  head_sha: GITLAB_IDS.shas.head,
  old_path: 'src/login.ts',
  new_path: 'src/login.ts',
  position_type: 'text' as const,
  old_line: null,
  new_line: 42,
};

let fake: FakeGitlab;
beforeAll(async () => {
  fake = await startFakeGitlab({
    token: TOKEN,
    projects: [
      { id: 42, path_with_namespace: 'acme/web' },
      { id: 43, path_with_namespace: 'acme/platform/api' },
    ],
    now: () => NOW,
  });
  fake.addIssue({ project: 'acme/web', iid: 7, title: 'Fix the login', description: 'It breaks on Safari', labels: ['bug'], state: 'opened', author: alice });
  fake.addMergeRequest({
    project: 'acme/web',
    iid: 5,
    title: 'Fix the login',
    description: 'Closes #7',
    state: 'opened',
    source_branch: 'agent/fix',
    target_branch: 'main',
    author: DEFAULT_BOT,
  });
  fake.setMember('acme/web', alice, ACCESS.developer);
  fake.setMember('acme/web', rita, ACCESS.reporter);
  fake.addPipeline({
    project: 'acme/web',
    id: 9001,
    status: 'failed',
    ref: 'refs/merge-requests/5/head',
    sha: GITLAB_IDS.shas.head,
    jobs: [
      { id: 7001, name: 'build', stage: 'build', status: 'success' },
      { id: 7002, name: 'unit-tests', stage: 'test', status: 'failed', trace: 'Running tests\nFAIL src/login.test.ts\n' },
      { id: 7003, name: 'secret-scan', stage: 'test', status: 'failed', traceForbidden: true },
    ],
  });
});
afterAll(() => fake.close());

const api = (path: string, init: RequestInit & { token?: string | null; bearer?: boolean } = {}) => {
  const { token = TOKEN, bearer = false, ...rest } = init;
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(rest.headers as Record<string, string>) };
  if (token !== null) headers[bearer ? 'authorization' : 'private-token'] = bearer ? `Bearer ${token}` : token;
  return fetch(`${fake.url}/api/v4${path}`, { ...rest, headers });
};
const post = (path: string, body: object, init: RequestInit = {}) => api(path, { method: 'POST', body: JSON.stringify(body), ...init });

describe('fake GitLab REST v4: the token', () => {
  it('takes PRIVATE-TOKEN or Authorization: Bearer, and answers GET /user as the token’s bot user', async () => {
    const byHeader = await api('/user');
    expect(byHeader.status).toBe(200);
    expect(await byHeader.json()).toMatchObject({ id: DEFAULT_BOT.id, username: 'project_42_bot_5f1c2d3e', bot: true, state: 'active' });
    expect((await api('/user', { bearer: true })).status).toBe(200);
    expect(fake.callsTo('currentUser').map((c) => [c.auth, c.token])).toEqual([
      ['private-token', TOKEN],
      ['bearer', TOKEN],
    ]);
  });

  it('refuses a missing or wrong token with GitLab’s 401 body, and a revoked one with invalid_token', async () => {
    for (const token of [null, 'glpat-wrong']) {
      const res = await api('/user', { token });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ message: '401 Unauthorized' });
    }
    const other = await startFakeGitlab({ token: 'glpat-soon-revoked' });
    other.revokeToken('glpat-soon-revoked');
    const res = await fetch(`${other.url}/api/v4/user`, { headers: { 'private-token': 'glpat-soon-revoked' } });
    expect([res.status, ((await res.json()) as { error: string }).error]).toEqual([401, 'invalid_token']);
    await other.close();
  });

  it('refuses a write with a read_api token: 403 insufficient_scope', async () => {
    const reader = await startFakeGitlab({ token: 'glpat-reader', scopes: ['read_api'], projects: [{ id: 1, path_with_namespace: 'a/b' }] });
    reader.addIssue({ project: 'a/b', iid: 1, title: 't', description: null, labels: [], state: 'opened', author: alice });
    const headers = { 'private-token': 'glpat-reader', 'content-type': 'application/json' };
    expect((await fetch(`${reader.url}/api/v4/projects/1/issues/1`, { headers })).status).toBe(200);
    const write = await fetch(`${reader.url}/api/v4/projects/1/issues/1/notes`, { method: 'POST', headers, body: '{"body":"hi"}' });
    expect(write.status).toBe(403);
    expect(await write.json()).toMatchObject({ error: 'insufficient_scope', scope: 'api' });
    expect(reader.notes()).toEqual([]);
    await reader.close();
  });
});

describe('fake GitLab REST v4: projects, issues and labels', () => {
  it('finds a project by id or URL-encoded path (subgroups too), and says 404 Project Not Found otherwise', async () => {
    expect(await (await api('/projects/42')).json()).toMatchObject({ id: 42, path_with_namespace: 'acme/web', web_url: `${fake.url}/acme/web` });
    expect(await (await api('/projects/acme%2Fweb')).json()).toMatchObject({ id: 42 });
    expect(await (await api('/projects/acme%2Fplatform%2Fapi')).json()).toMatchObject({ id: 43, namespace: { full_path: 'acme/platform' } });
    const missing = await api('/projects/acme%2Fnope');
    expect([missing.status, await missing.json()]).toEqual([404, { message: '404 Project Not Found' }]);
  });

  it('does not route a project path whose slash is not encoded (Grape’s 404 body)', async () => {
    const res = await api('/projects/acme/web/issues/7');
    expect([res.status, await res.json()]).toEqual([404, { error: '404 Not Found' }]);
    expect(fake.calls.at(-1)).toMatchObject({ route: 'unknown', rawPath: '/api/v4/projects/acme/web/issues/7', status: 404 });
  });

  it('answers an issue with its labels, changes them with add_labels/remove_labels, and says 404 Not found for no such issue', async () => {
    expect(await (await api('/projects/acme%2Fweb/issues/7')).json()).toMatchObject({
      iid: 7,
      title: 'Fix the login',
      labels: ['bug'],
      state: 'opened',
      web_url: `${fake.url}/acme/web/-/issues/7`,
      references: { full: 'acme/web#7' },
    });
    const edited = await api('/projects/42/issues/7', { method: 'PUT', body: JSON.stringify({ add_labels: 'agent,urgent', remove_labels: 'bug' }) });
    expect(((await edited.json()) as { labels: string[] }).labels).toEqual(['agent', 'urgent']);
    expect(fake.issue('acme/web', 7)?.labels).toEqual(['agent', 'urgent']);
    const none = await api('/projects/42/issues/999');
    expect([none.status, await none.json()]).toEqual([404, { message: '404 Not found' }]);
    expect((await api('/projects/42/issues/seven')).status).toBe(400);
  });
});

describe('fake GitLab REST v4: notes, threads and emoji', () => {
  it('creates and edits the token’s own notes on issues and merge requests, and refuses to edit another’s (403)', async () => {
    const created = await post('/projects/acme%2Fweb/issues/7/notes', { body: 'Working on it' });
    expect(created.status).toBe(201);
    const note = (await created.json()) as { id: number };
    expect(note).toMatchObject({
      body: 'Working on it',
      type: null,
      system: false,
      noteable_type: 'Issue',
      noteable_iid: 7,
      author: { username: DEFAULT_BOT.username },
    });
    const edited = await api(`/projects/acme%2Fweb/issues/7/notes/${note.id}`, { method: 'PUT', body: JSON.stringify({ body: 'Done' }) });
    expect([edited.status, ((await edited.json()) as { body: string }).body]).toEqual([200, 'Done']);
    const mrNote = await post('/projects/42/merge_requests/5/notes', { body: 'MR note' });
    expect(await mrNote.json()).toMatchObject({ noteable_type: 'MergeRequest', noteable_iid: 5 });
    const theirs = fake.addNote('acme/web', 'Issue', 7, 'mine', alice);
    expect((await api(`/projects/42/issues/7/notes/${theirs.id}`, { method: 'PUT', body: JSON.stringify({ body: 'hijacked' }) })).status).toBe(403);
    expect(theirs.body).toBe('mine');
    const empty = await post('/projects/42/issues/7/notes', {});
    expect([empty.status, await empty.json()]).toEqual([400, { error: 'body is missing' }]);
  });

  it('lists notes newest first (sort=asc oldest first), 20 a page with GitLab’s pagination headers', async () => {
    const fresh = await startFakeGitlab({ token: TOKEN, projects: [{ id: 1, path_with_namespace: 'a/b' }] });
    fresh.addIssue({ project: 'a/b', iid: 1, title: 't', description: null, labels: [], state: 'opened', author: alice });
    for (let i = 1; i <= 25; i += 1) fresh.addNote('a/b', 'Issue', 1, `note ${i}`, alice);
    const page1 = await fetch(`${fresh.url}/api/v4/projects/1/issues/1/notes`, { headers: { 'private-token': TOKEN } });
    const bodies = ((await page1.json()) as Array<{ body: string }>).map((n) => n.body);
    expect(bodies).toHaveLength(20);
    expect(bodies[0]).toBe('note 25');
    expect(
      Object.fromEntries(['x-page', 'x-per-page', 'x-next-page', 'x-prev-page', 'x-total', 'x-total-pages'].map((h) => [h, page1.headers.get(h)])),
    ).toEqual({
      'x-page': '1',
      'x-per-page': '20',
      'x-next-page': '2',
      'x-prev-page': '',
      'x-total': '25',
      'x-total-pages': '2',
    });
    const next = /<([^>]+)>; rel="next"/.exec(page1.headers.get('link') ?? '')?.[1];
    expect(next).toBe(`${fresh.url}/api/v4/projects/1/issues/1/notes?page=2&per_page=20`);
    const page2 = await fetch(next!, { headers: { 'private-token': TOKEN } });
    expect(((await page2.json()) as unknown[]).length).toBe(5);
    expect(page2.headers.get('x-next-page')).toBe('');
    const asc = await fetch(`${fresh.url}/api/v4/projects/1/issues/1/notes?sort=asc&per_page=500`, { headers: { 'private-token': TOKEN } });
    expect(asc.headers.get('x-per-page')).toBe('100');
    expect(((await asc.json()) as Array<{ body: string }>)[0]?.body).toBe('note 1');
    await fresh.close();
  });

  it('replies in a merge request thread — in a diff thread as a DiffNote at its position — and says 404 for no such thread', async () => {
    const diff = fake.addNote('acme/web', 'MergeRequest', 5, '@agent this leaks', bob, { position });
    const reply = await post(`/projects/acme%2Fweb/merge_requests/5/discussions/${diff.discussionId}/notes`, { body: 'Fixed in 9a8b7c6' });
    expect(reply.status).toBe(201);
    expect(await reply.json()).toMatchObject({ type: 'DiffNote', body: 'Fixed in 9a8b7c6', position: { new_path: 'src/login.ts', new_line: 42 } });
    expect(fake.notes('acme/web', 'MergeRequest', 5).filter((n) => n.discussionId === diff.discussionId)).toHaveLength(2);
    const plain = fake.addNote('acme/web', 'MergeRequest', 5, 'a thought', bob);
    expect(await (await post(`/projects/42/merge_requests/5/discussions/${plain.discussionId}/notes`, { body: 'agreed' })).json()).toMatchObject({
      type: 'DiscussionNote',
    });
    const none = await post('/projects/42/merge_requests/5/discussions/0000000000000000000000000000000000000000/notes', { body: 'x' });
    expect([none.status, await none.json()]).toEqual([404, { message: '404 Not found' }]);
  });

  it('awards emoji on notes once: a second award or an unknown name is a 404 whose message says why', async () => {
    const note = fake.addNote('acme/web', 'MergeRequest', 5, '@agent rename it', bob);
    const first = await post(`/projects/42/merge_requests/5/notes/${note.id}/award_emoji`, { name: 'eyes' });
    expect(first.status).toBe(201);
    expect(await first.json()).toMatchObject({ name: 'eyes', awardable_id: note.id, awardable_type: 'Note', user: { username: DEFAULT_BOT.username } });
    const again = await post(`/projects/42/merge_requests/5/notes/${note.id}/award_emoji`, { name: 'eyes' });
    expect([again.status, await again.json()]).toEqual([404, { message: '404 Award Emoji Name has already been taken Not Found' }]);
    const odd = await api(`/projects/42/merge_requests/5/notes/${note.id}/award_emoji?name=party_parrot`, { method: 'POST' });
    expect(odd.status).toBe(404);
    // The name may come in the query, as GitLab's own examples send it.
    expect((await api(`/projects/42/merge_requests/5/notes/${note.id}/award_emoji?name=rocket`, { method: 'POST' })).status).toBe(201);
    const listed = (await (await api(`/projects/42/merge_requests/5/notes/${note.id}/award_emoji`)).json()) as Array<{ name: string }>;
    expect(listed.map((a) => a.name)).toEqual(['eyes', 'rocket']);
    const onIssue = fake.addNote('acme/web', 'Issue', 7, '@agent go', alice);
    expect((await post(`/projects/42/issues/7/notes/${onIssue.id}/award_emoji`, { name: 'eyes' })).status).toBe(201);
    expect((await post(`/projects/42/issues/7/notes/999999/award_emoji`, { name: 'eyes' })).status).toBe(404);
  });
});

describe('fake GitLab REST v4: members, jobs and logs', () => {
  it('says a member’s access level including inherited ones, and 404 Not found for a non-member', async () => {
    expect(await (await api(`/projects/acme%2Fweb/members/all/${alice.id}`)).json()).toMatchObject({ id: alice.id, username: 'alice', access_level: 30 });
    expect(await (await api(`/projects/42/members/all/${rita.id}`)).json()).toMatchObject({ access_level: ACCESS.reporter });
    const stranger = await api(`/projects/42/members/all/${bob.id}`);
    expect([stranger.status, await stranger.json()]).toEqual([404, { message: '404 Not found' }]);
  });

  it('lists a pipeline’s failed jobs with scope[]=failed, newest first, and serves a job’s log as text (403 where the token may not read it)', async () => {
    const res = await api('/projects/42/pipelines/9001/jobs?scope[]=failed');
    const jobs = (await res.json()) as Array<{ id: number; name: string; status: string; web_url: string; failure_reason: string }>;
    expect(jobs.map((j) => [j.id, j.name, j.status])).toEqual([
      [7003, 'secret-scan', 'failed'],
      [7002, 'unit-tests', 'failed'],
    ]);
    expect(jobs[1]).toMatchObject({ web_url: `${fake.url}/acme/web/-/jobs/7002`, failure_reason: 'script_failure', pipeline: { id: 9001 } });
    expect(res.headers.get('x-total')).toBe('2');
    expect(((await (await api('/projects/42/pipelines/9001/jobs?scope=success')).json()) as unknown[]).length).toBe(1);
    const trace = await api('/projects/42/jobs/7002/trace');
    expect([trace.status, trace.headers.get('content-type'), await trace.text()]).toEqual([200, 'text/plain', 'Running tests\nFAIL src/login.test.ts\n']);
    const hidden = await api('/projects/42/jobs/7003/trace');
    expect([hidden.status, await hidden.json()]).toEqual([403, { message: '403 Forbidden' }]);
    expect((await api('/projects/42/jobs/1/trace')).status).toBe(404);
    expect((await api('/projects/42/pipelines/1/jobs')).status).toBe(404);
  });
});

describe('fake GitLab REST v4: users', () => {
  it('finds a user by username in any case; shows their public email (empty when none) but not their primary one; 404 User Not Found for an unknown id', async () => {
    fake.addUser({ ...bob, public_email: 'bob@example.com', email: 'bob@corp.example' });
    const listed = (await (await api(`/users?username=${bob.username.toUpperCase()}`)).json()) as { id: number; username: string }[];
    expect(listed.map((user) => user.id)).toEqual([bob.id]);
    expect(await (await api('/users?username=nobody-at-all')).json()).toEqual([]);
    const shown = (await (await api(`/users/${bob.id}`)).json()) as Record<string, unknown>;
    expect(shown).toMatchObject({ id: bob.id, username: bob.username, public_email: 'bob@example.com' });
    expect(shown).not.toHaveProperty('email');
    expect(await (await api(`/users/${alice.id}`)).json()).toMatchObject({ username: alice.username, public_email: '' });
    const unknown = await api('/users/123456789');
    expect([unknown.status, await unknown.json()]).toEqual([404, { message: '404 User Not Found' }]);
  });

  it('shows an administrator’s token the primary email and when it was confirmed (null before)', async () => {
    const instance = await startFakeGitlab({ token: TOKEN, admin: true });
    try {
      instance.addUser({ ...bob, email: 'bob@corp.example', confirmed: false });
      const shown = (await (await fetch(`${instance.url}/api/v4/users/${bob.id}`, { headers: { 'private-token': TOKEN } })).json()) as Record<string, unknown>;
      expect(shown).toMatchObject({ email: 'bob@corp.example', confirmed_at: null });
    } finally {
      await instance.close();
    }
  });
});

describe('fake GitLab REST v4: faults', () => {
  it('throttles with 429, Retry-After in seconds and RateLimit-Reset as Unix seconds (not a delay), after letting calls through', async () => {
    fake.failNext('getIssue', { status: 429, retryAfter: 30, after: 1 });
    expect((await api('/projects/42/issues/7')).status).toBe(200);
    const throttled = await api('/projects/42/issues/7');
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toBe('30');
    expect(throttled.headers.get('ratelimit-reset')).toBe(String(NOW / 1000 + 30));
    expect(throttled.headers.get('ratelimit-resettime')).toBe(new Date(NOW + 30_000).toUTCString());
    expect(throttled.headers.get('ratelimit-remaining')).toBe('0');
    expect(await throttled.text()).toBe('Retry later\n');
    expect((await api('/projects/42/issues/7')).status).toBe(200);
  });

  it('fails with 500 JSON or a 502/503 HTML page, `count` times, and quotes the token back only when told to', async () => {
    fake.failNext('createIssueNote', { status: 503, count: 2 });
    const before = fake.notes('acme/web', 'Issue', 7).length;
    for (let i = 0; i < 2; i += 1) {
      const res = await post('/projects/42/issues/7/notes', { body: 'x' });
      expect([res.status, res.headers.get('content-type')]).toEqual([503, 'text/html']);
      expect(await res.text()).not.toContain(TOKEN);
    }
    expect(fake.notes('acme/web', 'Issue', 7).length).toBe(before);
    fake.failNext('createIssueNote', { status: 500, echo: true });
    const echoed = await post('/projects/42/issues/7/notes', { body: 'x' });
    expect([echoed.status, JSON.stringify(await echoed.json())]).toEqual([500, expect.stringContaining(TOKEN)]);
    expect((await post('/projects/42/issues/7/notes', { body: 'x' })).status).toBe(201);
    expect(
      fake
        .callsTo('createIssueNote')
        .slice(-4)
        .map((c) => c.status),
    ).toEqual([503, 503, 500, 201]);
  });
});
