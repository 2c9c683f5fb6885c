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
