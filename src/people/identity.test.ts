import { describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../core/ports/logger.js';
import type { Requester } from '../core/ports/triggers.js';
import { openSqliteStore } from '../store/sqlite-store.js';
import { LinkedIdentity, personFor, type EmailDirectory } from './identity.js';

const LINEAR_EMAILS: Record<string, string> = { 'lin-ada': 'ada@example.com', 'lin-bob': 'bob@example.com' };
const SLACK_BY_EMAIL: Record<string, string> = { 'ada@example.com': 'U_ADA' };

function setup(directory: EmailDirectory = { emailOf: { linear: async (id) => LINEAR_EMAILS[id] }, personByEmail: async (email) => SLACK_BY_EMAIL[email] }) {
  const store = openSqliteStore({ path: ':memory:' });
  let now = 1_000;
  const warn = vi.fn();
  const debug = vi.fn();
  const logger = { ...silentLogger, warn, debug, child: () => logger };
  const identity = new LinkedIdentity({ people: 'slack', links: store.personLinks, directory, clock: { now: () => now }, logger, missTtlMs: 60_000 });
  return { store, identity, warn, debug, advance: (ms: number) => (now += ms) };
}

describe('personFor (Slack only, no links)', () => {
  it.each<[string, Requester | undefined, string | undefined]>([
    ['a Slack user is themselves', { platform: 'slack', id: 'U1' }, 'U1'],
    ['a Linear user is nobody without links', { platform: 'linear', id: 'lin-ada' }, undefined],
    ['no requester is nobody', undefined, undefined],
  ])('%s', async (_what, requester, person) => {
    expect(await personFor(requester)).toBe(person);
  });
});

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
    const { identity, store } = setup({ emailOf: { linear: linearEmail }, personByEmail: slackUserByEmail });
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
      personByEmail: async (email) => SLACK_BY_EMAIL[email],
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
    const slackByEmail: Record<string, string> = {};
    const slackUserByEmail = vi.fn(async (email: string) => slackByEmail[email]);
    const { identity, advance } = setup({ emailOf: { linear: async (id) => LINEAR_EMAILS[id] }, personByEmail: slackUserByEmail });
    expect(await identity.personFor({ platform: 'linear', id: 'lin-bob' })).toBeUndefined();
    expect(await identity.personFor({ platform: 'linear', id: 'lin-bob' })).toBeUndefined();
    expect(slackUserByEmail).toHaveBeenCalledTimes(1);
    slackByEmail['bob@example.com'] = 'U_BOB';
    advance(60_001);
    expect(await identity.personFor({ platform: 'linear', id: 'lin-bob' })).toBe('U_BOB');
  });

  it.each<[string, EmailDirectory]>([
    [
      'Linear fails',
      {
        emailOf: { linear: () => Promise.reject(Object.assign(new Error('boom ada@example.com'), { type: 'NetworkError' })) },
        personByEmail: async () => 'U_ADA',
      },
    ],
    [
      'Slack fails',
      {
        emailOf: { linear: async () => 'ada@example.com' },
        personByEmail: () => Promise.reject(Object.assign(new Error('x'), { code: 'slack_webapi_platform_error', data: { error: 'ratelimited' } })),
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

  it('says how to fix a Slack app without users:read.email', async () => {
    const missingScope = Object.assign(new Error('An API error occurred: missing_scope'), {
      code: 'slack_webapi_platform_error',
      data: { error: 'missing_scope' },
    });
    const { identity, warn } = setup({ emailOf: { linear: async () => 'ada@example.com' }, personByEmail: () => Promise.reject(missingScope) });
    expect(await identity.personFor({ platform: 'linear', id: 'lin-ada' })).toBeUndefined();
    expect(warn).toHaveBeenCalledWith({ surface: 'linear', userId: 'lin-ada', err: 'missing_scope' }, expect.stringContaining('add users:read.email'));
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
    personByEmail: async (email) => SLACK_BY_EMAIL[email],
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
