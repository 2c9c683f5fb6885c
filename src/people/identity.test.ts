import { describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../core/ports/logger.js';
import type { Requester } from '../core/ports/triggers.js';
import { openSqliteStore } from '../store/sqlite-store.js';
import { PersonIds } from '../surface-kit/person-ids.js';
import { LinkedIdentity, type EmailDirectory } from './identity.js';

const LINEAR_EMAILS: Record<string, string> = { 'lin-ada': 'ada@example.com', 'lin-bob': 'bob@example.com' };
const SLACK_BY_EMAIL: Record<string, string> = { 'ada@example.com': 'U_ADA' };

/** A chat surface whose ids stand bare, as Slack's, and `talk`, a made-up second chat surface whose people are written `talk:<id>`. */
const PEOPLE = new PersonIds([
  { name: 'slack', title: 'Slack', personIds: { isUserId: (id) => /^U\w+$/.test(id), bare: true, example: 'U1', idName: 'Slack user ID', whereToFind: '' } },
  { name: 'talk', title: 'Talk', personIds: { isUserId: (id) => /^t-\d+$/.test(id), example: 't-1', idName: 'Talk user ID', whereToFind: '' } },
]);
const slackByEmail = (lookup: (email: string) => Promise<string | undefined>) => [{ surface: 'slack', userByEmail: lookup }];

function setup(
  directory: EmailDirectory = { emailOf: { linear: async (id) => LINEAR_EMAILS[id] }, peopleByEmail: slackByEmail(async (email) => SLACK_BY_EMAIL[email]) },
) {
  const store = openSqliteStore({ path: ':memory:' });
  let now = 1_000;
  const warn = vi.fn();
  const debug = vi.fn();
  const logger = { ...silentLogger, warn, debug, child: () => logger };
  const identity = new LinkedIdentity({ people: PEOPLE, links: store.personLinks, directory, clock: { now: () => now }, logger, missTtlMs: 60_000 });
  return { store, identity, warn, debug, advance: (ms: number) => (now += ms) };
}

describe('LinkedIdentity', () => {
  it.each<[string, Requester | undefined, string | undefined]>([
    ['a Slack user is themselves', { platform: 'slack', id: 'U1', name: 'Uma' }, 'U1'],
    ['a Linear user with a Slack user of the same email is that user', { platform: 'linear', id: 'lin-ada' }, 'U_ADA'],
    ['a Linear user whose email nobody in Slack has is nobody', { platform: 'linear', id: 'lin-bob' }, undefined],
    ['a Linear user without an email is nobody', { platform: 'linear', id: 'lin-ghost' }, undefined],
    ['a schedule is nobody', { platform: 'schedule', id: 'nightly' }, undefined],
    ['an empty id is nobody', { platform: 'slack', id: '' }, undefined],
    ['no requester is nobody', undefined, undefined],
  ])('%s', async (_what, requester, person) => {
    const { identity } = setup();
    expect(await identity.personFor(requester)).toBe(person);
  });

  it('keeps an email link found once, and asks nobody the next time', async () => {
    const linearEmail = vi.fn(async (id: string) => LINEAR_EMAILS[id]);
    const slackUserByEmail = vi.fn(async (email: string) => SLACK_BY_EMAIL[email]);
    const { identity, store } = setup({ emailOf: { linear: linearEmail }, peopleByEmail: slackByEmail(slackUserByEmail) });
    expect(await identity.personFor({ platform: 'linear', id: 'lin-ada' })).toBe('U_ADA');
    expect(await store.personLinks.get('linear', 'lin-ada')).toEqual({
      surface: 'linear',
      userId: 'lin-ada',
      personId: 'U_ADA',
      how: 'email',
      linkedAt: 1_000,
    });
    expect(await identity.personFor({ platform: 'linear', id: 'lin-ada' })).toBe('U_ADA');
    expect(linearEmail).toHaveBeenCalledTimes(1);
    expect(slackUserByEmail).toHaveBeenCalledTimes(1);
  });

  it('links users of any surface by (surface, id): the same id on another surface is someone else', async () => {
    const { identity, store } = setup({
      emailOf: { forge: async (id) => (id === 'octo' ? 'ada@example.com' : undefined) },
      peopleByEmail: slackByEmail(async (email) => SLACK_BY_EMAIL[email]),
    });
    expect(await identity.personFor({ platform: 'forge', id: 'octo' })).toBe('U_ADA');
    await store.personLinks.put({ surface: 'tracker', userId: 'lin-ada', personId: 'U_TRACKER', how: 'console', linkedAt: 1 });
    expect(await identity.personFor({ platform: 'tracker', id: 'lin-ada' })).toBe('U_TRACKER');
    // Linear's lin-ada is not tracker's: no email lookup is configured for Linear here, so nobody.
    expect(await identity.personFor({ platform: 'linear', id: 'lin-ada' })).toBeUndefined();
    expect((await store.personLinks.list()).map((link) => [link.surface, link.userId, link.personId])).toEqual([
      ['forge', 'octo', 'U_ADA'],
      ['tracker', 'lin-ada', 'U_TRACKER'],
    ]);
  });

  it('a GitHub login is the Slack user an admin linked it to; unlinked, nobody (GitHub shows no verified email)', async () => {
    const { identity, store } = setup();
    expect(await identity.personFor({ platform: 'github', id: 'octocat' })).toBeUndefined();
    await store.personLinks.put({ surface: 'github', userId: 'octocat', personId: 'U_OCTO', how: 'console', linkedAt: 1 });
    expect(await identity.personFor({ platform: 'github', id: 'octocat', name: 'OctoCat' })).toBe('U_OCTO');
  });

  it('prefers a console link to the email match', async () => {
    const { identity, store } = setup();
    await store.personLinks.put({ surface: 'linear', userId: 'lin-ada', personId: 'U_OTHER', how: 'console', linkedAt: 1 });
    expect(await identity.personFor({ platform: 'linear', id: 'lin-ada' })).toBe('U_OTHER');
  });

  it('remembers a miss for a while, then looks again', async () => {
    const known: Record<string, string> = {};
    const slackUserByEmail = vi.fn(async (email: string) => known[email]);
    const { identity, advance } = setup({ emailOf: { linear: async (id) => LINEAR_EMAILS[id] }, peopleByEmail: slackByEmail(slackUserByEmail) });
    expect(await identity.personFor({ platform: 'linear', id: 'lin-bob' })).toBeUndefined();
    expect(await identity.personFor({ platform: 'linear', id: 'lin-bob' })).toBeUndefined();
    expect(slackUserByEmail).toHaveBeenCalledTimes(1);
    known['bob@example.com'] = 'U_BOB';
    advance(60_001);
    expect(await identity.personFor({ platform: 'linear', id: 'lin-bob' })).toBe('U_BOB');
  });

  it.each<[string, EmailDirectory]>([
    [
      'Linear fails',
      {
        emailOf: { linear: () => Promise.reject(Object.assign(new Error('boom ada@example.com'), { type: 'NetworkError' })) },
        peopleByEmail: slackByEmail(async () => 'U_ADA'),
      },
    ],
    [
      'Slack fails',
      {
        emailOf: { linear: async () => 'ada@example.com' },
        peopleByEmail: slackByEmail(() =>
          Promise.reject(Object.assign(new Error('x'), { code: 'slack_webapi_platform_error', data: { error: 'ratelimited' } })),
        ),
      },
    ],
  ])('answers "nobody" when %s, warns once without the email, and tries again next time', async (_what, directory) => {
    const { identity, warn, debug, store } = setup(directory);
    expect(await identity.personFor({ platform: 'linear', id: 'lin-ada' })).toBeUndefined();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(JSON.stringify(warn.mock.calls)).not.toContain('ada@example.com');
    expect(await store.personLinks.list()).toEqual([]);
    // The same failure again soon after: asked again, said at debug only (no warning per request).
    expect(await identity.personFor({ platform: 'linear', id: 'lin-ada' })).toBeUndefined();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(debug).toHaveBeenCalledTimes(1);
  });

  it('says how to fix what failed, as the chat surface that failed said it, never the error’s message', async () => {
    const missingScope = Object.assign(new Error('An API error occurred: missing_scope ada@example.com'), {
      data: { error: 'missing_scope' },
      hint: 'add users:read.email to the app',
    });
    const { identity, warn } = setup({ emailOf: { linear: async () => 'ada@example.com' }, peopleByEmail: slackByEmail(() => Promise.reject(missingScope)) });
    expect(await identity.personFor({ platform: 'linear', id: 'lin-ada' })).toBeUndefined();
    expect(warn).toHaveBeenCalledWith(
      { surface: 'linear', userId: 'lin-ada', err: 'missing_scope' },
      'add users:read.email to the app; until then requests by linear users who are not linked use the service key',
    );
  });

  it('links nobody by email while Slack or Linear is off, but still follows console links', async () => {
    const { identity, store } = setup({ emailOf: { linear: async (id) => LINEAR_EMAILS[id] } });
    expect(await identity.personFor({ platform: 'linear', id: 'lin-ada' })).toBeUndefined();
    await store.personLinks.put({ surface: 'linear', userId: 'lin-ada', personId: 'U_ADA', how: 'console', linkedAt: 1 });
    expect(await identity.personFor({ platform: 'linear', id: 'lin-ada' })).toBe('U_ADA');
  });
});

describe('LinkedIdentity: Jira accounts (issue 30, point 4)', () => {
  const JIRA_EMAILS: Record<string, string> = { 'acc-ada': 'ada@example.com', 'acc-bob': 'bob@example.com' };
  const directory = (): EmailDirectory => ({
    emailOf: { linear: async (id) => LINEAR_EMAILS[id], jira: async (id) => JIRA_EMAILS[id] },
    peopleByEmail: slackByEmail(async (email) => SLACK_BY_EMAIL[email]),
  });

  it.each<[string, Requester, string | undefined]>([
    ['a Jira account whose shown email a Slack user has is that user', { platform: 'jira', id: 'acc-ada' }, 'U_ADA'],
    ['a Jira account whose email nobody in Slack has is nobody', { platform: 'jira', id: 'acc-bob' }, undefined],
    ['a Jira account that hides its email is nobody', { platform: 'jira', id: 'acc-hidden' }, undefined],
  ])('%s', async (_what, requester, person) => {
    const { identity } = setup(directory());
    expect(await identity.personFor(requester)).toBe(person);
  });

  it('keeps the link under (jira, accountId), beside Linear ids, and an admin’s link wins', async () => {
    const { identity, store } = setup(directory());
    expect(await identity.personFor({ platform: 'jira', id: 'acc-ada' })).toBe('U_ADA');
    expect(await store.personLinks.get('jira', 'acc-ada')).toMatchObject({ personId: 'U_ADA', how: 'email' });
    // The same id under Linear is someone else: links are per surface.
    expect(await identity.personFor({ platform: 'linear', id: 'acc-ada' })).toBeUndefined();
    await store.personLinks.put({ surface: 'jira', userId: 'acc-bob', personId: 'U_BOB', how: 'console', linkedAt: 2 });
    expect(await identity.personFor({ platform: 'jira', id: 'acc-bob' })).toBe('U_BOB');
  });

  it('without a Jira directory (Jira off), a Jira account is nobody unless linked', async () => {
    const { identity, store } = setup();
    expect(await identity.personFor({ platform: 'jira', id: 'acc-ada' })).toBeUndefined();
    await store.personLinks.put({ surface: 'jira', userId: 'acc-ada', personId: 'U_ADA', how: 'console', linkedAt: 2 });
    expect(await identity.personFor({ platform: 'jira', id: 'acc-ada' })).toBe('U_ADA');
  });
});

describe('LinkedIdentity: two chat surfaces', () => {
  const TALK_BY_EMAIL: Record<string, string> = { 'ada@example.com': 't-1', 'bob@example.com': 't-2' };
  const both = (slack: (email: string) => Promise<string | undefined>, talk = async (email: string) => TALK_BY_EMAIL[email]): EmailDirectory => ({
    emailOf: { linear: async (id) => LINEAR_EMAILS[id] },
    peopleByEmail: [
      { surface: 'slack', userByEmail: slack },
      { surface: 'talk', userByEmail: talk },
    ],
  });

  it.each<[string, Requester, string | undefined]>([
    ['a user of the second chat surface is themselves, as its person id', { platform: 'talk', id: 't-7' }, 'talk:t-7'],
    ['a Slack user still is their bare id', { platform: 'slack', id: 'U1' }, 'U1'],
    ['an id of another shape on a chat surface is no person', { platform: 'talk', id: 'U1' }, undefined],
    ['a Linear user both chats know is the first one’s person', { platform: 'linear', id: 'lin-ada' }, 'U_ADA'],
    ['a Linear user only the second chat knows is its person', { platform: 'linear', id: 'lin-bob' }, 'talk:t-2'],
  ])('%s', async (_what, requester, person) => {
    const { identity } = setup(both(async (email) => SLACK_BY_EMAIL[email]));
    expect(await identity.personFor(requester)).toBe(person);
  });

  it('keeps the link to the second chat’s person, asking each chat once', async () => {
    const slack = vi.fn(async (email: string) => SLACK_BY_EMAIL[email]);
    const talk = vi.fn(async (email: string) => TALK_BY_EMAIL[email]);
    const { identity, store } = setup(both(slack, talk));
    expect(await identity.personFor({ platform: 'linear', id: 'lin-bob' })).toBe('talk:t-2');
    expect(await store.personLinks.get('linear', 'lin-bob')).toMatchObject({ personId: 'talk:t-2', how: 'email' });
    expect(await identity.personFor({ platform: 'linear', id: 'lin-bob' })).toBe('talk:t-2');
    expect([slack.mock.calls.length, talk.mock.calls.length]).toEqual([1, 1]);
  });

  it('finds the person on the second chat while the first fails, and remembers no miss while one failed', async () => {
    const down = vi.fn(() => Promise.reject(Object.assign(new Error('x'), { code: 'ratelimited' })));
    const { identity, warn } = setup(both(down));
    expect(await identity.personFor({ platform: 'linear', id: 'lin-bob' })).toBe('talk:t-2');
    const nobody = setup(both(down, async () => undefined));
    expect(await nobody.identity.personFor({ platform: 'linear', id: 'lin-ada' })).toBeUndefined();
    expect(nobody.warn).toHaveBeenCalledTimes(1);
    expect(await nobody.identity.personFor({ platform: 'linear', id: 'lin-ada' })).toBeUndefined();
    // Not remembered as a miss: asked again.
    expect(down).toHaveBeenCalledTimes(3);
    expect(warn).not.toHaveBeenCalled();
  });
});
