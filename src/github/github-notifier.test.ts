import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGithubApi, type FakeGithubApi } from '../../test/fakes/github-api.js';
import { noticeOf } from '../core/outbox/notice-parts.js';
import type { OutboxMessage, RunSnapshot } from '../core/ports/messages.js';
import { NotifierError, type Delivery } from '../core/ports/notifier.js';
import { octokitGithubApi } from './github-api.js';
import { GithubNotifier, defuseMentions, keyMarker } from './github-notifier.js';
import { PERSON_IDS } from '../surface-list.js';

const PEM = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
const REPO = 'acme/web';
let fake: FakeGithubApi;
let notifier: GithubNotifier;
let issue = 0;

beforeAll(async () => {
  fake = await startFakeGithubApi({ appId: '11', privateKey: PEM });
  notifier = new GithubNotifier({ api: octokitGithubApi({ appId: '11', privateKey: PEM, baseUrl: fake.url }), handle: '@agent', people: PERSON_IDS });
});
afterAll(() => fake.close());

function newIssue(): { number: number; place: string } {
  issue += 1;
  fake.addIssue({ repo: REPO, number: issue, title: 'T', body: null, user: { login: 'octocat', id: 1, type: 'User' }, labels: [], state: 'open' });
  return { number: issue, place: `github:${REPO}#${issue}` };
}

const results = new Map<string, unknown>();
async function send(key: string, destination: string, message: OutboxMessage, attempt = 0): Promise<unknown> {
  const delivery: Delivery = { key, destination, message, attempt, resultOf: async (k) => results.get(k) };
  const result = await notifier.deliver(delivery);
  results.set(key, result);
  return result;
}

const run = (state: string, extra: Partial<RunSnapshot> = {}): RunSnapshot => ({ runId: 'run_1', title: 'acme/web#1: T', state, pullRequests: [], ...extra });

describe('GithubNotifier', () => {
  it('posts the start comment once, edits it at each state, and a re-sent start finds the comment it posted', async () => {
    const { number, place } = newIssue();
    const received = `received:t1:${place}`;
    await send(received, place, { kind: 'received', title: 'acme/web#1: T', requester: 'octocat' });
    // The answer was lost (a crash, a timeout): the outbox sends again.
    await send(received, place, { kind: 'received', title: 'acme/web#1: T', requester: 'octocat' }, 1);
    expect(fake.comments(REPO, number)).toHaveLength(1);
    expect(fake.comments(REPO, number)[0]?.body).toContain(keyMarker(received));
    await send(`run:run_1:1:${place}:status`, place, { kind: 'status', run: run('INPROGRESS'), receivedKey: received });
    expect(fake.comments(REPO, number)).toHaveLength(1);
    expect(fake.comments(REPO, number)[0]?.body).toContain('INPROGRESS');
  });

  it('announces once per key, even when re-sent', async () => {
    const { number, place } = newIssue();
    const key = `run:run_1:3:${place}:announce`;
    const message: OutboxMessage = {
      kind: 'announce',
      run: run('SUCCEEDED', { pullRequests: ['https://github.com/acme/web/pull/9'] }),
      receivedKey: `received:t:${place}`,
    };
    await send(key, place, message);
    await send(key, place, message, 1);
    await send(key, place, message, 2);
    expect(fake.comments(REPO, number)).toHaveLength(1);
    expect(fake.comments(REPO, number)[0]?.body).toContain('https://github.com/acme/web/pull/9');
  });

  it('names a chat’s people in words, not in the chat’s markup: who asked, and who rejected a request', async () => {
    const { number, place } = newIssue();
    await send(`received:people:${place}`, place, { kind: 'received', title: 'acme/web#1: T', requester: '<@U0ADA>' });
    await send(`notice:people:${place}`, place, { kind: 'notice', text: '<@U0ADA>: your request was rejected by <@U0LEAD>.' });
    const [start, notice] = fake.comments(REPO, number).map((comment) => comment.body);
    expect(start).toContain('Received from Slack user U0ADA — starting a run…');
    expect(notice).toContain('Slack user U0ADA: your request was rejected by Slack user U0LEAD.');
    expect(`${start}${notice}`).not.toContain('<@');
  });

  it('a place with no start comment (a run’s pull request) gets one status comment, edited afterwards', async () => {
    const { number, place } = newIssue();
    const received = `received:slack-trigger:${place}`;
    await send(`run:run_1:2:${place}:status`, place, { kind: 'status', run: run('INPROGRESS'), receivedKey: received });
    await send(`run:run_1:3:${place}:status`, place, { kind: 'status', run: run('SUCCEEDED'), receivedKey: received });
    expect(fake.comments(REPO, number)).toHaveLength(1);
    expect(fake.comments(REPO, number)[0]?.body).toContain('SUCCEEDED');
  });

  it('reacts eyes on receipt and rocket once the run API took it; a failed reaction is retried, and reacts once', async () => {
    const { place } = newIssue();
    const reference = { repo: REPO, number: 1, reviewComment: 4242 };
    await send('seen:1', place, { kind: 'seen', reference });
    expect(fake.reactions.filter((r) => r.subject === 'review-comment:4242').map((r) => r.content)).toEqual(['eyes']);
    fake.failNext('reactToReviewComment', { status: 502 });
    const message: OutboxMessage = { kind: 'followup_accepted', runId: 'run_1', reference };
    await expect(send('accepted:1', place, message)).rejects.toMatchObject({ retryable: true });
    await send('accepted:1', place, message, 1);
    expect(fake.reactions.filter((r) => r.subject === 'review-comment:4242').map((r) => r.content)).toEqual(['eyes', 'rocket']);
  });

  it('a comment deleted since owes no reaction', async () => {
    const { place } = newIssue();
    expect(await send('accepted:2', place, { kind: 'followup_accepted', runId: 'run_1', reference: { repo: REPO, number: 1, comment: 999_999 } })).toEqual({
      reacted: false,
    });
  });

  it('foreign text mentions no one and links nothing; our handle stays', async () => {
    const { number, place } = newIssue();
    await send('notice:1', place, { kind: 'notice', text: 'ping @octocat and @acme/admins, see ![x](https://evil.example/p.png)' });
    const body = fake.comments(REPO, number)[0]?.body ?? '';
    expect(body).not.toMatch(/(^|[^\u2060])@octocat/);
    expect(body).not.toContain('![x](https://evil');
    expect(defuseMentions('answer with @agent, not @someone', '@agent')).toBe('answer with @agent, not @\u2060someone');
  });

  it('a notice’s links are live Markdown links; a URL in its words is inert; a link’s URL is never defused', async () => {
    const { number, place } = newIssue();
    const review = 'https://github.com/Codertocat/Hello-World/pull/2#discussion_r17';
    await send(
      'notice:link',
      place,
      noticeOf(['GitHub user @Codertocat sent the run ', { url: review, label: 'a comment on src/a.ts line 3' }, ' from GitHub.']),
    );
    const body = fake.comments(REPO, number)[0]?.body ?? '';
    expect(body).toContain(`GitHub user @\u2060Codertocat sent the run [a comment on src/a.ts line 3](<${review}>) from GitHub.`);
    // A row stored before notices had links: the URL inert, as it was.
    await send('notice:old', place, { kind: 'notice', text: `merged: ${review}` });
    expect(fake.comments(REPO, number)[1]?.body).toContain('merged: https\\://github.com/Codertocat/Hello-World/pull/2\\#discussion\\_r17');
    // Our session link keeps an `@` in its URL whole; the same words in text are defused.
    const session = 'https://agent.example/@team/sessions/1';
    await send(`run:run_1:4:${place}:announce`, place, {
      kind: 'announce',
      run: run('SUCCEEDED', { sessionLink: session }),
      receivedKey: `received:t:${place}`,
    });
    expect(fake.comments(REPO, number)[2]?.body).toContain(`Session: <${session}>`);
    expect(defuseMentions(`[Open session](<${session}>) by @team`, '@agent')).toBe(`[Open session](<${session}>) by @\u2060team`);
  });

  it('refuses a destination that is not a GitHub place, for good', async () => {
    await expect(send('x', 'github:not a place', { kind: 'notice', text: 'x' })).rejects.toBeInstanceOf(NotifierError);
    await expect(send('x', 'github:acme/web', { kind: 'notice', text: 'x' })).rejects.toMatchObject({ code: 'bad_destination', retryable: false });
  });
});
