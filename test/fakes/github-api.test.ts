import { createPublicKey, createSign, generateKeyPairSync } from 'node:crypto';
import { createAppAuth } from '@octokit/auth-app';
import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jwtProblem, startFakeGithubApi, type FakeGithubApi } from './github-api.js';

const APP_ID = '4242';
const pair = () => generateKeyPairSync('rsa', { modulusLength: 1024 });
const { privateKey } = pair();
const PEM = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
const OTHER_PEM = pair().privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

let fake: FakeGithubApi;
beforeAll(async () => {
  fake = await startFakeGithubApi({
    appId: APP_ID,
    privateKey: PEM,
    roles: { 'Acme/Web': { Octocat: 'maintain' } },
    issues: [
      {
        repo: 'acme/web',
        number: 7,
        title: 'Fix the login',
        body: 'It breaks on Safari',
        user: { login: 'octocat', id: 1, type: 'User' },
        labels: ['agent'],
        state: 'open',
      },
    ],
  });
});
afterAll(() => fake.close());

const installation = (key = PEM, appId = APP_ID) =>
  new Octokit({ baseUrl: fake.url, authStrategy: createAppAuth, auth: { appId, privateKey: key, installationId: 77 }, log: silent });

describe('fake GitHub REST API (as the REST docs describe it)', () => {
  it('hands an installation token for the App JWT, and answers issue calls with it', async () => {
    const octokit = installation();
    const issue = await octokit.rest.issues.get({ owner: 'acme', repo: 'web', issue_number: 7 });
    expect(issue.data).toMatchObject({ number: 7, title: 'Fix the login', body: 'It breaks on Safari', state: 'open', labels: [{ name: 'agent' }] });
    expect(issue.data.html_url).toBe('https://github.com/acme/web/issues/7');
    const [tokenCall] = fake.callsTo('createToken');
    expect(tokenCall).toMatchObject({ method: 'POST', path: '/app/installations/77/access_tokens', status: 201 });
    expect(tokenCall?.authorization).toMatch(/^bearer [\w-]+\.[\w-]+\.[\w-]+$/i);
    expect(fake.tokens[0]).toMatchObject({ installationId: 77, token: expect.stringMatching(/^ghs_/), expiresAt: expect.stringMatching(/Z$/) });
    expect(fake.callsTo('getIssue')[0]?.authorization).toBe(`token ${fake.tokens[0]?.token}`);
  });

  it('creates, updates and lists issue comments, and reacts to them', async () => {
    const octokit = installation();
    const created = await octokit.rest.issues.createComment({ owner: 'acme', repo: 'web', issue_number: 7, body: 'Working on it' });
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({ body: 'Working on it', user: { login: 'agent-bridge[bot]', type: 'Bot' }, author_association: 'NONE' });
    expect(created.data.html_url).toBe(`https://github.com/acme/web/issues/7#issuecomment-${created.data.id}`);
    const updated = await octokit.rest.issues.updateComment({ owner: 'acme', repo: 'web', comment_id: created.data.id, body: 'Done' });
    expect(updated.data.body).toBe('Done');
    fake.addComment('acme/web', 7, 'Please hurry', { login: 'hubot' }, 'CONTRIBUTOR');
    const listed = await octokit.rest.issues.listComments({ owner: 'acme', repo: 'web', issue_number: 7, per_page: 100 });
    expect(listed.data.map((c) => [c.body, c.user?.login, c.author_association])).toEqual([
      ['Done', 'agent-bridge[bot]', 'NONE'],
      ['Please hurry', 'hubot', 'CONTRIBUTOR'],
    ]);
    const first = await octokit.rest.reactions.createForIssueComment({ owner: 'acme', repo: 'web', comment_id: created.data.id, content: 'eyes' });
    const again = await octokit.rest.reactions.createForIssueComment({ owner: 'acme', repo: 'web', comment_id: created.data.id, content: 'eyes' });
    expect([first.status, again.status]).toEqual([201, 200]);
    const review = await octokit.rest.reactions.createForPullRequestReviewComment({ owner: 'acme', repo: 'web', comment_id: 555, content: 'rocket' });
    expect(review.status).toBe(201);
    expect(fake.reactions.map((r) => [r.subject, r.content])).toEqual([
      [`issue-comment:${created.data.id}`, 'eyes'],
      ['review-comment:555', 'rocket'],
    ]);
    const labels = await octokit.rest.issues.listLabelsOnIssue({ owner: 'acme', repo: 'web', issue_number: 7 });
    expect(labels.data.map((l) => l.name)).toEqual(['agent']);
  });

  it('answers 404 for an unknown issue and 422 for a bad reaction', async () => {
    const octokit = installation();
    await expect(octokit.rest.issues.get({ owner: 'acme', repo: 'web', issue_number: 999 })).rejects.toMatchObject({ status: 404 });
    await expect(
      octokit.request('POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions', {
        owner: 'acme',
        repo: 'web',
        comment_id: 1000,
        content: 'party' as 'eyes',
      }),
    ).rejects.toMatchObject({ status: 422 });
  });

  it('says a person’s permission on a repository: legacy base role and role name, read for anyone else, 404 for no such login', async () => {
    const octokit = installation();
    const permission = async (username: string) => (await octokit.rest.repos.getCollaboratorPermissionLevel({ owner: 'acme', repo: 'web', username })).data;
    expect(await permission('octocat')).toMatchObject({
      permission: 'write',
      role_name: 'maintain',
      user: { login: 'octocat', permissions: { push: true, admin: false } },
    });
    fake.setRole('acme/web', 'hubot', 'triage');
    expect(await permission('hubot')).toMatchObject({ permission: 'read', role_name: 'triage', user: { permissions: { triage: true, push: false } } });
    fake.setRole('acme/web', 'boss', 'admin');
    expect(await permission('boss')).toMatchObject({ permission: 'admin', role_name: 'admin' });
    expect(await permission('stranger')).toMatchObject({ permission: 'read', role_name: 'read', user: { permissions: { pull: true, push: false } } });
    await expect(permission('ghost')).rejects.toMatchObject({ status: 404 });
    expect(fake.callsTo('getPermission').at(-1)).toMatchObject({ method: 'GET', path: '/repos/acme/web/collaborators/ghost/permission', status: 404 });
  });

  it('quotes the Authorization header back in a failure when told to (a careless proxy)', async () => {
    fake.failNext('createToken', { status: 401, echo: true });
    const octokit = new Octokit({ baseUrl: fake.url, authStrategy: createAppAuth, auth: { appId: APP_ID, privateKey: PEM, installationId: 78 }, log: silent });
    const failure = await octokit.rest.issues.get({ owner: 'acme', repo: 'web', issue_number: 7 }).catch((error: unknown) => error);
    const jwt =
      fake
        .callsTo('createToken')
        .at(-1)
        ?.authorization?.replace(/^bearer /i, '') ?? 'none';
    expect(jwt).toMatch(/^eyJ/);
    expect(failure).toMatchObject({ status: 401 });
    expect(JSON.stringify((failure as { response?: unknown }).response)).toContain(jwt);
  });

  it('refuses a JWT signed with another key (401), and a token it never gave (401)', async () => {
    await expect(installation(OTHER_PEM).rest.issues.get({ owner: 'acme', repo: 'web', issue_number: 7 })).rejects.toMatchObject({ status: 401 });
    await expect(installation(PEM, '9999').rest.issues.get({ owner: 'acme', repo: 'web', issue_number: 7 })).rejects.toMatchObject({ status: 401 });
    const stranger = new Octokit({ baseUrl: fake.url, auth: 'ghs_made_up_token', log: silent });
    await expect(stranger.rest.issues.get({ owner: 'acme', repo: 'web', issue_number: 7 })).rejects.toMatchObject({ status: 401 });
    expect(fake.callsTo('getIssue').at(-1)?.status).toBe(401);
  });

  it('checks the JWT claims as GitHub does', () => {
    const now = 1_800_000_000;
    const jwt = (claims: Record<string, unknown>) => {
      const head = Buffer.from(JSON.stringify({ alg: 'RS256', typ: 'JWT' })).toString('base64url');
      const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
      const signature = createSign('RSA-SHA256').update(`${head}.${body}`).sign(privateKey).toString('base64url');
      return `${head}.${body}.${signature}`;
    };
    const ours = (token: string) => jwtProblem(token, createPublicKey(PEM), APP_ID, now);
    expect(ours(jwt({ iss: 4242, iat: now - 60, exp: now + 540 }))).toBeUndefined();
    expect(ours(jwt({ iss: 4242, iat: now - 60, exp: now + 600 }))).toMatch(/too far/);
    expect(ours(jwt({ iss: 4242, iat: now - 700, exp: now - 100 }))).toMatch(/past/);
    expect(ours(jwt({ iss: 1, iat: now - 60, exp: now + 500 }))).toMatch(/iss/);
    expect(jwtProblem(jwt({ iss: 4242, iat: now - 60, exp: now + 500 }), createPublicKey(OTHER_PEM), APP_ID, now)).toMatch(/signature/);
    expect(ours('not.a')).toMatch(/not a JWT/);
  });
});
