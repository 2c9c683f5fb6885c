import { describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../core/ports/logger.js';
import type { Requester } from '../core/ports/triggers.js';
import { openSqliteStore } from '../store/sqlite-store.js';
import { LinkedIdentity, githubLinkId, personFor, type EmailDirectory } from './identity.js';

const LINEAR_EMAILS: Record<string, string> = { 'lin-ada': 'ada@example.com', 'lin-bob': 'bob@example.com' };
const SLACK_BY_EMAIL: Record<string, string> = { 'ada@example.com': 'U_ADA' };

function setup(directory: EmailDirectory = { linearEmail: async (id) => LINEAR_EMAILS[id], slackUserByEmail: async (email) => SLACK_BY_EMAIL[email] }) {
  const store = openSqliteStore({ path: ':memory:' });
  let now = 1_000;
  const warn = vi.fn();
  const debug = vi.fn();
  const logger = { ...silentLogger, warn, debug, child: () => logger };
  const identity = new LinkedIdentity({ links: store.personLinks, directory, clock: { now: () => now }, logger, missTtlMs: 60_000 });
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
    const { identity, store } = setup({ linearEmail, slackUserByEmail });
    expect(await identity.personFor({ platform: 'linear', id: 'lin-ada' })).toBe('U_ADA');
    expect(await store.personLinks.get('lin-ada')).toEqual({ linearUserId: 'lin-ada', slackUserId: 'U_ADA', how: 'email', linkedAt: 1_000 });
    expect(await identity.personFor({ platform: 'linear', id: 'lin-ada' })).toBe('U_ADA');
    expect(linearEmail).toHaveBeenCalledTimes(1);
    expect(slackUserByEmail).toHaveBeenCalledTimes(1);
  });

  it('a GitHub login is the Slack user an admin linked it to, whatever its case; unlinked, nobody', async () => {
    const { identity, store } = setup();
    expect(await identity.personFor({ platform: 'github', id: 'octocat' })).toBeUndefined();
    await store.personLinks.put({ linearUserId: githubLinkId('OctoCat'), slackUserId: 'U_OCTO', how: 'console', linkedAt: 1 });
    expect(await identity.personFor({ platform: 'github', id: 'octocat', name: 'OctoCat' })).toBe('U_OCTO');
  });

  it('prefers a console link to the email match', async () => {
    const { identity, store } = setup();
    await store.personLinks.put({ linearUserId: 'lin-ada', slackUserId: 'U_OTHER', how: 'console', linkedAt: 1 });
    expect(await identity.personFor({ platform: 'linear', id: 'lin-ada' })).toBe('U_OTHER');
  });

  it('remembers a miss for a while, then looks again', async () => {
    const slackByEmail: Record<string, string> = {};
    const slackUserByEmail = vi.fn(async (email: string) => slackByEmail[email]);
    const { identity, advance } = setup({ linearEmail: async (id) => LINEAR_EMAILS[id], slackUserByEmail });
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
        linearEmail: () => Promise.reject(Object.assign(new Error('boom ada@example.com'), { type: 'NetworkError' })),
        slackUserByEmail: async () => 'U_ADA',
      },
    ],
    [
      'Slack fails',
      {
        linearEmail: async () => 'ada@example.com',
        slackUserByEmail: () => Promise.reject(Object.assign(new Error('x'), { code: 'slack_webapi_platform_error', data: { error: 'ratelimited' } })),
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
    const { identity, warn } = setup({ linearEmail: async () => 'ada@example.com', slackUserByEmail: () => Promise.reject(missingScope) });
    expect(await identity.personFor({ platform: 'linear', id: 'lin-ada' })).toBeUndefined();
    expect(warn).toHaveBeenCalledWith({ linearUserId: 'lin-ada', err: 'missing_scope' }, expect.stringContaining('add users:read.email'));
  });

  it('links nobody by email while Slack or Linear is off, but still follows console links', async () => {
    const { identity, store } = setup({ linearEmail: async (id) => LINEAR_EMAILS[id] });
    expect(await identity.personFor({ platform: 'linear', id: 'lin-ada' })).toBeUndefined();
    await store.personLinks.put({ linearUserId: 'lin-ada', slackUserId: 'U_ADA', how: 'console', linkedAt: 1 });
    expect(await identity.personFor({ platform: 'linear', id: 'lin-ada' })).toBe('U_ADA');
  });
});
