import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adfParagraph, startFakeJiraApi, type FakeJiraApi } from './jira-api.js';

/* The fake Jira REST v3 answers as Atlassian's docs say, so tests against it mean something. */

const EMAIL = 'bot@acme.example';
const TOKEN = 'jira-token-0123456789';
const auth = `Basic ${Buffer.from(`${EMAIL}:${TOKEN}`).toString('base64')}`;
let fake: FakeJiraApi;

beforeAll(async () => {
  fake = await startFakeJiraApi({
    email: EMAIL,
    apiToken: TOKEN,
    users: [{ accountId: 'acc-grace', displayName: 'Grace', emailAddress: 'grace@acme.example' }],
  });
  fake.addIssue({
    id: '10001',
    key: 'ENG-1',
    summary: 'Fix it',
    description: adfParagraph('Steps'),
    labels: ['agent'],
    project: { id: '1', key: 'ENG', name: 'Engineering' },
  });
});
afterAll(() => fake.close());

const call = async (method: string, path: string, body?: unknown, authorization = auth) => {
  const response = await fetch(`${fake.url}${path}`, {
    method,
    headers: { authorization, accept: 'application/json', ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text.startsWith('{') ? text : '{}') as Record<string, unknown>) : {} };
};

describe('fake Jira REST v3', () => {
  it.each([
    ['no authorization', ''],
    ['a wrong token', `Basic ${Buffer.from(`${EMAIL}:wrong`).toString('base64')}`],
    ['a bearer token', `Bearer ${TOKEN}`],
  ])('answers 401 to %s, and records it', async (_what, authorization) => {
    const before = fake.calls.length;
    expect((await call('GET', '/rest/api/3/myself', undefined, authorization)).status).toBe(401);
    expect(fake.calls.slice(before).map((recorded) => recorded.status)).toEqual([401]);
  });

  it('GET /myself and /user: accountId, display name, email only where shown', async () => {
    expect((await call('GET', '/rest/api/3/myself')).body).toMatchObject({ accountId: fake.myself.accountId, displayName: 'agent-bridge' });
    expect((await call('GET', '/rest/api/3/user?accountId=acc-grace')).body).toMatchObject({ emailAddress: 'grace@acme.example' });
    expect((await call('GET', '/rest/api/3/user?accountId=nobody')).status).toBe(404);
  });

  it('GET /issue/{key}: summary, ADF description, labels, project; 404 in Jira’s error shape', async () => {
    const { status, body } = await call('GET', '/rest/api/3/issue/ENG-1');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      id: '10001',
      key: 'ENG-1',
      fields: { summary: 'Fix it', labels: ['agent'], project: { key: 'ENG' }, description: { type: 'doc' } },
    });
    const missing = await call('GET', '/rest/api/3/issue/ENG-404');
    expect(missing).toMatchObject({ status: 404, body: { errorMessages: [expect.stringMatching(/does not exist/)] } });
  });

  it('comments: create (ADF only, with properties), list newest first with properties expanded, update our own only', async () => {
    expect((await call('POST', '/rest/api/3/issue/ENG-1/comment', { body: 'plain text' })).status).toBe(400);
    const human = fake.addComment('ENG-1', 'a person wrote this');
    const created = await call('POST', '/rest/api/3/issue/ENG-1/comment', {
      body: adfParagraph('ours'),
      properties: [{ key: 'agent-bridge', value: { key: 'k1' } }],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ author: { accountId: fake.myself.accountId }, body: { type: 'doc' } });
    const listed = await call('GET', '/rest/api/3/issue/ENG-1/comment?orderBy=-created&maxResults=10&expand=properties');
    const page = listed.body['comments'] as Array<{ id: string; properties?: unknown[] }>;
    expect(page.map((comment) => comment.id)).toEqual([created.body['id'], human.id]);
    expect(page[0]?.properties).toEqual([{ key: 'agent-bridge', value: { key: 'k1' } }]);
    expect((await call('PUT', `/rest/api/3/issue/ENG-1/comment/${String(created.body['id'])}`, { body: adfParagraph('edited') })).status).toBe(200);
    expect(fake.text(fake.comments('ENG-1')[1]!.body)).toBe('edited');
    expect((await call('PUT', `/rest/api/3/issue/ENG-1/comment/${human.id}`, { body: adfParagraph('not ours') })).status).toBe(403);
  });

  it('transitions: listed by name, made by id; an unknown id is 400', async () => {
    const listed = await call('GET', '/rest/api/3/issue/ENG-1/transitions');
    const review = (listed.body['transitions'] as Array<{ id: string; name: string }>).find((transition) => transition.name === 'In Review');
    expect((await call('POST', '/rest/api/3/issue/ENG-1/transitions', { transition: { id: review?.id } })).status).toBe(204);
    expect(fake.issue('ENG-1')?.status).toBe('In Review');
    expect((await call('POST', '/rest/api/3/issue/ENG-1/transitions', { transition: { id: '999' } })).status).toBe(400);
  });

  it('GET /user/permission/search: the matching users holding every permission asked, on a project or an issue’s project', async () => {
    const search = async (query: string) => {
      const response = await fetch(`${fake.url}/rest/api/3/user/permission/search?${query}`, { headers: { authorization: auth } });
      return { status: response.status, body: (await response.json()) as Array<Record<string, unknown>> };
    };
    const found = async (query: string) => (await search(query)).body.map((user) => user['accountId']);
    // The default scheme lets every person of the site browse, comment and edit.
    expect(await found('permissions=EDIT_ISSUES&projectKey=ENG&accountId=acc-grace')).toEqual(['acc-grace']);
    expect(await found('permissions=EDIT_ISSUES,BROWSE_PROJECTS&issueKey=ENG-1&accountId=acc-someone')).toEqual(['acc-someone']);
    expect(await found('permissions=ADMINISTER_PROJECTS&projectKey=ENG&accountId=acc-grace')).toEqual([]);
    expect(await found('permissions=EDIT_ISSUES&projectKey=ENG&query=gra')).toEqual(['acc-grace']);
    // Customers and apps hold nothing the scheme grants people; a grant is theirs alone.
    fake.addUser({ accountId: 'qm:customer', displayName: 'Customer', accountType: 'customer' });
    fake.addUser({ accountId: 'acc-app', displayName: 'Automation', accountType: 'app' });
    expect(await found('permissions=EDIT_ISSUES&projectKey=ENG&accountId=qm:customer')).toEqual([]);
    fake.grant('ENG', 'acc-app', 'EDIT_ISSUES');
    expect((await search('permissions=EDIT_ISSUES&projectKey=ENG&accountId=acc-app')).body).toEqual([
      expect.objectContaining({ accountId: 'acc-app', accountType: 'app', active: true }),
    ]);
  });

  it.each([
    ['no permissions', 'projectKey=ENG&accountId=acc-grace', 400],
    ['an unknown permission', 'permissions=EDIT_EVERYTHING&projectKey=ENG&accountId=acc-grace', 400],
    ['neither accountId nor query', 'permissions=EDIT_ISSUES&projectKey=ENG', 400],
    ['both accountId and query', 'permissions=EDIT_ISSUES&projectKey=ENG&accountId=acc-grace&query=g', 400],
    ['neither projectKey nor issueKey', 'permissions=EDIT_ISSUES&accountId=acc-grace', 400],
    ['a project it does not know', 'permissions=EDIT_ISSUES&projectKey=NOPE&accountId=acc-grace', 404],
    ['an issue it does not know', 'permissions=EDIT_ISSUES&issueKey=ENG-404&accountId=acc-grace', 404],
  ])('GET /user/permission/search with %s → its 4xx in Jira’s error shape', async (_what, query, status) => {
    const answer = await call('GET', `/rest/api/3/user/permission/search?${query}`);
    expect(answer).toMatchObject({ status, body: { errorMessages: [expect.any(String)] } });
  });

  it('GET /user/permission/search is 403 when our account may not administer the project, until it is granted', async () => {
    const strict = await startFakeJiraApi({ email: EMAIL, apiToken: TOKEN, administrator: false, anyoneMay: [] });
    try {
      strict.addIssue({ id: '1', key: 'OPS-1', summary: 's', labels: [], project: { id: '2', key: 'OPS', name: 'Ops' } });
      const url = `${strict.url}/rest/api/3/user/permission/search?permissions=EDIT_ISSUES&projectKey=OPS&accountId=acc-grace`;
      expect((await fetch(url, { headers: { authorization: auth } })).status).toBe(403);
      strict.grant('OPS', strict.myself.accountId, 'ADMINISTER_PROJECTS');
      const answer = await fetch(url, { headers: { authorization: auth } });
      // Granted the right to search, it finds nobody: the strict scheme grants editing to no one.
      expect({ status: answer.status, body: await answer.json() }).toEqual({ status: 200, body: [] });
    } finally {
      await strict.close();
    }
  });

  it('failNext fails the matching calls with a status and Retry-After, then answers again', async () => {
    fake.failNext('GET', '/rest/api/3/issue/*', { status: 429, retryAfter: 3 });
    const response = await fetch(`${fake.url}/rest/api/3/issue/ENG-1`, { headers: { authorization: auth } });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('3');
    await response.text();
    expect((await call('GET', '/rest/api/3/issue/ENG-1')).status).toBe(200);
    expect(fake.callsTo('GET', '/rest/api/3/issue/*').length).toBeGreaterThanOrEqual(2);
  });
});
