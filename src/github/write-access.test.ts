import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGithubApi, type FakeGithubApi } from '../../test/fakes/github-api.js';
import type { StoredTrigger } from '../core/ports/store.js';
import { octokitGithubApi } from './github-api.js';
import { PERMISSION_TTL_MS, githubWriteAccess } from './write-access.js';

const PEM = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
let fake: FakeGithubApi;
beforeAll(async () => {
  fake = await startFakeGithubApi({
    appId: '12',
    privateKey: PEM,
    roles: { 'acme/web': { writer: 'write', keeper: 'maintain', boss: 'admin', triager: 'triage', reader: 'read' } },
  });
});
afterAll(() => fake.close());

function trigger(login: string | undefined, kind: 'start' | 'followup' | 'cancel' = 'start', reference?: unknown): StoredTrigger {
  const requester = login === undefined ? {} : { requester: { platform: 'github', id: login.toLowerCase(), name: login } };
  const common = { key: `t:${login}:${kind}`, source: 'github', anchor: 'github:acme/web#7' };
  const record = {
    id: 1,
    state: 'working' as const,
    attempts: 1,
    nextAttemptAt: 0,
    leaseOwner: 'w',
    leaseUntil: 1,
    createAttemptedAt: null,
    runId: null,
    lastError: null,
    receivedAt: 0,
    updatedAt: 0,
  };
  if (kind === 'followup') return { ...common, ...record, kind, payload: { message: 'more', ...requester, reference, checkRequester: true } };
  if (kind === 'cancel') return { ...common, ...record, kind, payload: { ...requester, reference, checkRequester: true } };
  return {
    ...common,
    ...record,
    kind,
    payload: { prompt: 'p', title: 't', origin: { source: 'github' }, destinations: ['github:acme/web#7'], ...requester, checkRequester: true },
  };
}

function check(allowedUsers: string[] = []) {
  let now = 1_000_000;
  const access = githubWriteAccess({ api: octokitGithubApi({ appId: '12', privateKey: PEM, baseUrl: fake.url }), config: { allowedUsers }, now: () => now });
  return { access, advance: (ms: number) => (now += ms) };
}

describe('github write access, asked of GitHub in the worker', () => {
  it('clears admin, maintain and write; refuses triage, read, a stranger and a login GitHub does not know, saying why', async () => {
    const { access } = check();
    for (const login of ['Writer', 'keeper', 'boss']) expect(await access.refusal(trigger(login))).toBeUndefined();
    expect(await access.refusal(trigger('triager'))).toBe('triager has triage access to acme/web, not write, and is not in github.allowed_users');
    expect(await access.refusal(trigger('reader'))).toMatch(/^reader has read access/);
    expect(await access.refusal(trigger('stranger'))).toMatch(/^stranger has read access/);
    expect(await access.refusal(trigger('ghost'))).toMatch(/^ghost has no access/);
    expect(await access.refusal(trigger(undefined))).toBe('the request names nobody');
  });

  it('github.allowed_users clears without asking GitHub', async () => {
    const before = fake.callsTo('getPermission').length;
    expect(await check(['friend']).access.refusal(trigger('Friend'))).toBeUndefined();
    expect(fake.callsTo('getPermission').length).toBe(before);
  });

  it('keeps each answer five minutes per repository and login, then asks again (a revoked access stops in time)', async () => {
    const { access, advance } = check();
    fake.setRole('acme/web', 'leaver', 'write');
    const asked = () => fake.callsTo('getPermission').filter((call) => call.path.endsWith('/leaver/permission')).length;
    expect(await access.refusal(trigger('leaver'))).toBeUndefined();
    fake.setRole('acme/web', 'leaver', 'read');
    advance(PERMISSION_TTL_MS - 1);
    expect(await access.refusal(trigger('leaver', 'cancel'))).toBeUndefined();
    expect(asked()).toBe(1);
    advance(1);
    expect(await access.refusal(trigger('leaver'))).toMatch(/read access/);
    expect(asked()).toBe(2);
  });

  it('GitHub failing is no answer: the worker is told to ask again, nothing is kept', async () => {
    const { access } = check();
    fake.failNext('getPermission', { status: 502 });
    await expect(access.refusal(trigger('writer'))).rejects.toMatchObject({ name: 'GithubCallError', status: 502 });
    expect(await access.refusal(trigger('writer'))).toBeUndefined();
  });

  it('once cleared, a steering or stopping comment is owed its 👀; a start gets it with its received message', () => {
    const { access } = check();
    const reference = { repo: 'acme/web', number: 7, comment: 55 };
    expect(access.owedOnceCleared?.(trigger('writer', 'followup', reference))).toEqual([
      { key: 'seen:t:writer:followup', destination: 'github:acme/web#7', kind: 'seen', payload: { kind: 'seen', reference } },
    ]);
    expect(access.owedOnceCleared?.(trigger('writer', 'cancel'))).toEqual([]);
    expect(access.owedOnceCleared?.(trigger('writer', 'start'))).toEqual([]);
  });
});
