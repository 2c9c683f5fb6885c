import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGitlab, type FakeGitlab } from '../../test/fakes/gitlab-api.js';
import { GITLAB_IDS } from '../../test/fixtures/gitlab/index.js';
import type { StoredTrigger } from '../core/ports/store.js';
import { ACCESS_TTL_MS, gitlabMemberAccess } from './access.js';
import { fetchGitlabApi } from './gitlab-api.js';

const TOKEN = 'glpat-access-test-0123456789abcdef';
const PROJECT = GITLAB_IDS.project.path;
const { alice, bob, rita, ghost } = GITLAB_IDS.people;

let gitlab: FakeGitlab;
beforeAll(async () => {
  gitlab = await startFakeGitlab({ token: TOKEN, projects: [{ id: GITLAB_IDS.project.id, path_with_namespace: PROJECT }] });
  gitlab.setMember(PROJECT, alice, 30);
  gitlab.setMember(PROJECT, bob, 50);
  gitlab.setMember(PROJECT, rita, 20);
});
afterAll(() => gitlab.close());

/** A note's trigger as the edge stores it: who asked, by username and GitLab id, and where. */
const trigger = (user: { id: number; username: string }, note = 1): StoredTrigger =>
  ({
    key: `gitlab:note:${note}`,
    kind: 'followup',
    anchor: `gitlab:${PROJECT}#7`,
    payload: {
      message: 'go',
      requester: { platform: 'gitlab', id: user.username, name: user.username },
      reference: { project: PROJECT, kind: 'issues', iid: 7, note, userId: user.id },
      checkRequester: true,
    },
  }) as unknown as StoredTrigger;

describe('who may drive the agent from GitLab', () => {
  it.each([
    ['a Developer', alice, undefined],
    ['an Owner', bob, undefined],
    ['a Reporter', rita, 'rita has level 20 access to acme/web, below Developer, and is not in gitlab.allowed_users'],
    ['someone who is no member', ghost, 'ghost has no access to acme/web, below Developer, and is not in gitlab.allowed_users'],
  ])('%s: asked of GitLab (members/all, inherited memberships too)', async (_name, user, refusal) => {
    const check = gitlabMemberAccess({ api: fetchGitlabApi({ url: gitlab.url, token: TOKEN }), config: { allowedUsers: [] }, now: () => 0 });
    expect(await check.refusal(trigger(user))).toBe(refusal);
    expect(gitlab.callsTo('getMemberAll').at(-1)?.rawPath).toBe(`/api/v4/projects/acme%2Fweb/members/all/${user.id}`);
  });

  it('someone gitlab.allowed_users names may, without a question to GitLab', async () => {
    const calls = gitlab.calls.length;
    const check = gitlabMemberAccess({ api: fetchGitlabApi({ url: gitlab.url, token: TOKEN }), config: { allowedUsers: ['rita'] }, now: () => 0 });
    expect(await check.refusal(trigger(rita))).toBeUndefined();
    expect(gitlab.calls.length).toBe(calls);
  });

  it('keeps an answer five minutes per project and user, then asks again (a revoked access stops within that)', async () => {
    let now = 1_000;
    const check = gitlabMemberAccess({ api: fetchGitlabApi({ url: gitlab.url, token: TOKEN }), config: { allowedUsers: [] }, now: () => now });
    const asked = () => gitlab.callsTo('getMemberAll').filter((call) => call.rawPath.endsWith(`/${alice.id}`)).length;
    const before = asked();
    expect(await check.refusal(trigger(alice, 1))).toBeUndefined();
    expect(await check.refusal(trigger(alice, 2))).toBeUndefined();
    expect(asked()).toBe(before + 1);
    gitlab.setMember(PROJECT, alice, 20);
    now += ACCESS_TTL_MS;
    expect(await check.refusal(trigger(alice, 3))).toMatch(/alice has level 20 access/);
    expect(asked()).toBe(before + 2);
  });

  it('throws when GitLab cannot say (the worker asks again later), and owes the eyes once cleared', async () => {
    const check = gitlabMemberAccess({ api: fetchGitlabApi({ url: gitlab.url, token: TOKEN }), config: { allowedUsers: [] }, now: () => 0 });
    gitlab.failNext('getMemberAll', { status: 503 });
    await expect(check.refusal(trigger(alice))).rejects.toThrow(/GitLab answered 503/);
    expect(check.owedOnceCleared?.(trigger(alice, 44))).toEqual([
      {
        key: 'seen:gitlab:note:44',
        destination: `gitlab:${PROJECT}#7`,
        kind: 'seen',
        payload: { kind: 'seen', reference: expect.objectContaining({ note: 44 }) },
      },
    ]);
  });
});
