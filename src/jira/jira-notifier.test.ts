import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Delivery } from '../core/ports/notifier.js';
import { noticeOf } from '../core/outbox/notice-parts.js';
import type { OutboxMessage } from '../core/ports/messages.js';
import { startFakeJiraApi, type FakeJiraApi } from '../../test/fakes/jira-api.js';
import { restJiraApi, type JiraApi } from './jira-api.js';
import { JiraNotifier, markFor, parseJiraDestination } from './jira-notifier.js';
import { PERSON_IDS } from '../surface-list.js';

/* The notifier against the fake Jira REST v3: the start comment, its edits, the announcements, exactly once. */

let fake: FakeJiraApi;
let api: JiraApi;
let notifier: JiraNotifier;
let issueNumber = 0;
let key = '';

beforeAll(async () => {
  fake = await startFakeJiraApi({ email: 'bot@acme.example', apiToken: 'token' });
  api = restJiraApi({ baseUrl: fake.url, email: 'bot@acme.example', apiToken: 'token' });
  notifier = new JiraNotifier({ api, handle: '@agent', people: PERSON_IDS });
});
afterAll(async () => {
  await api.close();
  await fake.close();
});
beforeEach(() => {
  key = `ENG-${(issueNumber += 1)}`;
  fake.addIssue({ id: String(issueNumber), key, summary: 's', labels: [], project: { id: '1', key: 'ENG', name: 'Engineering' } });
});

const results = new Map<string, unknown>();
const deliver = async (rowKey: string, message: OutboxMessage, attempt = 0) => {
  const delivery: Delivery = { key: rowKey, destination: `jira:${key}`, message, attempt, resultOf: async (of) => results.get(of) };
  const result = await notifier.deliver(delivery);
  results.set(rowKey, result);
  return result;
};
const run = { runId: 'run_1', title: 'ENG-1: s', state: 'INPROGRESS', pullRequests: [] };
const texts = () => fake.comments(key).map((comment) => fake.text(comment.body));

describe('JiraNotifier', () => {
  it('posts the start comment, edits it at each state, and announces the end in a new comment', async () => {
    await deliver(`received:${key}`, { kind: 'received', title: 'ENG-1: s', requester: '<@U0ADA>' });
    expect(texts()).toEqual(['agent-bridge · ENG-1: s\nReceived from Slack user U0ADA — starting a run…']);
    await deliver('status-1', { kind: 'status', run, receivedKey: `received:${key}` });
    expect(texts()[0]).toContain('State: INPROGRESS');
    await deliver('announce-1', { kind: 'announce', run: { ...run, state: 'SUCCEEDED' }, receivedKey: `received:${key}` });
    expect(texts()).toHaveLength(2);
    expect(texts()[1]).toMatch(/^✅ Done/);
  });

  it('a retried create whose first attempt landed finds its mark and creates nothing', async () => {
    fake.failNext('POST', '/rest/api/3/issue/*/comment', { status: 502, land: true });
    await expect(deliver('notice-1', { kind: 'notice', text: 'hello' })).rejects.toMatchObject({ code: 'server_error', retryable: true });
    await deliver('notice-1', { kind: 'notice', text: 'hello' }, 1);
    expect(texts()).toEqual(['hello']);
    expect(fake.comments(key)[0]?.properties).toEqual([{ key: 'agent-bridge', value: { mark: markFor('notice-1') } }]);
  });

  it('a notice’s link reaches Jira as a link mark; its words as text', async () => {
    const url = 'https://github.com/Codertocat/Hello-World/pull/2';
    await deliver('notice-link', noticeOf(['The pull request ', { url, label: 'Codertocat/Hello-World#2' }, ' was merged (https://evil.example).']));
    const body = fake.comments(key)[0]?.body as unknown as { content: Array<{ content: unknown[] }> };
    expect(body.content[0]?.content).toEqual([
      { type: 'text', text: 'The pull request ' },
      { type: 'text', text: 'Codertocat/Hello-World#2', marks: [{ type: 'link', attrs: { href: url } }] },
      { type: 'text', text: ' was merged (https://evil.example).' },
    ]);
  });

  it('names a chat’s people in words, in a notice too, not in the chat’s markup', async () => {
    await deliver('notice-people', { kind: 'notice', text: '<@U0ADA>: your request was rejected by <@slack:U0LEAD>.' });
    expect(texts()).toEqual(['Slack user U0ADA: your request was rejected by Slack user U0LEAD.']);
  });

  it('without a start comment, a replacement is created once and edited after', async () => {
    await deliver('status-a', { kind: 'status', run, receivedKey: 'received:gone' });
    await deliver('status-b', { kind: 'status', run: { ...run, state: 'BLOCKED' }, receivedKey: 'received:gone' });
    expect(texts()).toHaveLength(1);
    expect(texts()[0]).toContain('State: BLOCKED');
  });

  it('a refused token is a permanent error; a rate limit is retried after Retry-After', async () => {
    fake.failNext('POST', '/rest/api/3/issue/*/comment', { status: 401 });
    await expect(deliver('n-401', { kind: 'notice', text: 'x' })).rejects.toMatchObject({ code: 'unauthorized', retryable: false });
    fake.failNext('POST', '/rest/api/3/issue/*/comment', { status: 429, retryAfter: 7 });
    await expect(deliver('n-429', { kind: 'notice', text: 'x' })).rejects.toMatchObject({ code: 'rate_limited', retryable: true, retryAfterMs: 7_000 });
  });

  it('refuses a destination that is not an issue key', () => {
    expect(() => parseJiraDestination('jira:../../admin')).toThrow(/not a Jira destination/);
  });
});
