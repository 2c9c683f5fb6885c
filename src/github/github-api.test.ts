import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGithubApi, type FakeGithubApi } from '../../test/fakes/github-api.js';
import { serialise } from '../../test/stress/secrets-scan.js';
import { githubError, octokitGithubApi } from './github-api.js';

const failure = (status: number | undefined, headers: Record<string, string> = {}) => Object.assign(new Error('x'), { status, response: { headers } });

describe('githubError', () => {
  it.each<[string, unknown, boolean, number | undefined]>([
    ['no answer', new Error('ECONNRESET'), true, undefined],
    ['a 502', failure(502), true, undefined],
    ['a 429 with retry-after', failure(429, { 'retry-after': '30' }), true, 30_000],
    ['a secondary rate limit (403 with retry-after)', failure(403, { 'retry-after': '60' }), true, 60_000],
    ['the primary rate limit spent (403, none left)', failure(403, { 'x-ratelimit-remaining': '0' }), true, undefined],
    ['a 403 for want of permission', failure(403), false, undefined],
    ['a 401', failure(401), false, undefined],
    ['a 404', failure(404), false, undefined],
    ['a 422', failure(422), false, undefined],
  ])('%s → retryable %s', (_what, error, retryable, retryAfterMs) => {
    const mapped = githubError(error, 'post a comment');
    expect(mapped.retryable).toBe(retryable);
    expect(mapped.retryAfterMs).toBe(retryAfterMs);
    expect(mapped.code).toMatch(/^github_/);
  });
});

describe('a failed call quotes no credential, whatever GitHub answers', () => {
  const PEM = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  let fake: FakeGithubApi;
  beforeAll(async () => {
    fake = await startFakeGithubApi({ appId: '13', privateKey: PEM });
    fake.addIssue({ repo: 'acme/web', number: 7, title: 'T', body: null, user: { login: 'octocat', id: 1, type: 'User' }, labels: [], state: 'open' });
  });
  afterAll(() => fake.close());

  it('the token endpoint quoting the App’s JWT, then a call quoting the installation token: the errors keep the status, not the credential', async () => {
    const api = octokitGithubApi({ appId: '13', privateKey: PEM, baseUrl: fake.url });
    api.knowInstallation('acme/web', 77);
    fake.failNext('createToken', { status: 401, echo: true });
    const refused = await api.issue('acme/web', 7, 5).catch((error: unknown) => error);
    const jwt = fake.callsTo('createToken')[0]?.authorization?.replace(/^bearer /i, '') ?? '';
    expect(jwt).toMatch(/^eyJ[\w-]+\.eyJ[\w-]+\.[\w-]+$/);
    expect(refused).toMatchObject({
      name: 'GithubCallError',
      status: 401,
      message: expect.stringMatching(/^GitHub answered 401 to read the issue: Refused: bearer \[redacted\]/),
    });
    expect(serialise(refused)).not.toContain(jwt.split('.')[2]);

    fake.failNext('createComment', { status: 502, echo: true });
    const failed = await api.createComment('acme/web', 7, 'hello').catch((error: unknown) => error);
    const token = fake.tokens.at(-1)?.token ?? 'none';
    expect(fake.callsTo('createComment').at(-1)?.authorization).toBe(`token ${token}`);
    expect(failed).toMatchObject({ status: 502 });
    expect(serialise(failed)).not.toContain(token);
    // What the outbox makes of it: retried, and still without the token.
    const mapped = githubError(failed, 'post a comment');
    expect(mapped.retryable).toBe(true);
    expect(serialise(mapped)).not.toContain(token);
  });
});
