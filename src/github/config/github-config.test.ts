import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { problemsOf, tempDir } from '../../../test/config/helpers.js';
import { describeConfig, integrationSummary } from '../../config/describe-config.js';
import { loadConfig } from '../../config/load-config.js';
import type { AppConfig } from '../../config/types.js';

// GitHub hands out PKCS#1 keys ("Generate a private key"); a small one keeps the test quick.
const PEM = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
const ESCAPED = PEM.trim().replace(/\n/g, '\\n');
/** The same key as PKCS#8 ("BEGIN PRIVATE KEY"), as `openssl pkcs8 -topk8` writes it. */
const PKCS8 = createPrivateKey(PEM).export({ type: 'pkcs8', format: 'pem' }).toString();
const BODY_LINES = PEM.trim().split('\n').slice(1, -1);
/** A PEM whose BEGIN and END lines are right but whose body is not a key. */
const GARBAGE = `-----BEGIN RSA PRIVATE KEY-----\n${Buffer.from('this is no key at all, only text').toString('base64')}\n-----END RSA PRIVATE KEY-----\n`;
/** The App's key with its body cut in half (a paste that stopped short). */
const CUT = ['-----BEGIN RSA PRIVATE KEY-----', ...BODY_LINES.slice(0, BODY_LINES.length / 2), '-----END RSA PRIVATE KEY-----', ''].join('\n');
const EC = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const SECRET = 'gh-webhook-secret-0123456789';
const F = 'agent-bridge.yml';

const github = (env: Record<string, string>, files: Record<string, string> = {}) => loadConfig({ env, cwd: tempDir(files) }).github;
const envProblems = (env: Record<string, string>, files: Record<string, string> = {}) => problemsOf(() => loadConfig({ env, cwd: tempDir(files) }));
const fileGithub = (yaml: string) => loadConfig({ env: {}, cwd: tempDir({ [F]: yaml }) }).github;

describe('GitHub environment: valid', () => {
  it.each([
    ['a key file', { GITHUB_APP_ID: '123456', GITHUB_PRIVATE_KEY_PATH: 'keys/app.pem', GITHUB_WEBHOOK_SECRET: SECRET }],
    ['a key with \\n escapes', { GITHUB_APP_ID: '123456', GITHUB_PRIVATE_KEY: ESCAPED, GITHUB_WEBHOOK_SECRET: SECRET }],
    ['a key with real line breaks', { GITHUB_APP_ID: '123456', GITHUB_PRIVATE_KEY: PEM, GITHUB_WEBHOOK_SECRET: SECRET }],
  ])('turns GitHub on with %s', (_name, env) => {
    const config = github(env, { 'keys/app.pem': PEM });
    expect(config).toMatchObject({ enabled: true, appId: '123456', webhookSecret: SECRET, apiUrl: 'https://api.github.com', webUrl: 'https://github.com' });
    expect(config.privateKey?.trim()).toBe(PEM.trim());
  });

  it('takes the same RSA key as PKCS#8 ("BEGIN PRIVATE KEY")', () => {
    expect(github({ GITHUB_APP_ID: '123456', GITHUB_PRIVATE_KEY: PKCS8, GITHUB_WEBHOOK_SECRET: SECRET }).privateKey?.trim()).toBe(PKCS8.trim());
  });

  it.each([
    ['GITHUB_API_URL for tests', { GITHUB_API_URL: 'http://127.0.0.1:9000/' }, (c: AppConfig['github']) => c.apiUrl, 'http://127.0.0.1:9000'],
    [
      'GITHUB_API_URL for Enterprise Server',
      { GITHUB_API_URL: 'https://ghe.example.com/api/v3' },
      (c: AppConfig['github']) => c.apiUrl,
      'https://ghe.example.com/api/v3',
    ],
    ['GITHUB_WEB_URL', { GITHUB_WEB_URL: 'https://ghe.example.com/' }, (c: AppConfig['github']) => c.webUrl, 'https://ghe.example.com'],
    ['no variable: GitHub off', {}, (c: AppConfig['github']) => c.enabled, false],
  ])('reads %s', (_name, env, pick, expected) => {
    expect(pick(github(env))).toEqual(expected);
  });
});

describe('GitHub environment: a partial set stops the start, naming what is missing and where GitHub shows it', () => {
  it.each([
    ['the id alone', { GITHUB_APP_ID: '1' }, ['GITHUB_PRIVATE_KEY_PATH', 'GITHUB_WEBHOOK_SECRET'], /Generate a private key/],
    ['no webhook secret', { GITHUB_APP_ID: '1', GITHUB_PRIVATE_KEY: ESCAPED }, ['GITHUB_WEBHOOK_SECRET'], /Webhook secret/],
    ['no id', { GITHUB_PRIVATE_KEY: ESCAPED, GITHUB_WEBHOOK_SECRET: SECRET }, ['GITHUB_APP_ID'], /App ID/],
    ['a secret alone', { GITHUB_WEBHOOK_SECRET: SECRET }, ['GITHUB_APP_ID', 'GITHUB_PRIVATE_KEY_PATH'], /turn GitHub off/],
    [
      'both key forms',
      { GITHUB_APP_ID: '1', GITHUB_PRIVATE_KEY: ESCAPED, GITHUB_PRIVATE_KEY_PATH: 'app.pem', GITHUB_WEBHOOK_SECRET: SECRET },
      ['GITHUB_PRIVATE_KEY_PATH'],
      /set one of them/,
    ],
  ])('%s', (_name, env, missing, hint) => {
    const problems = envProblems(env);
    expect(problems.map((p) => p.where)).toEqual(missing);
    expect(problems.map((p) => `${p.message} ${p.hint ?? ''}`).join('\n')).toMatch(hint);
  });

  it.each([
    ['a client id as the App ID', { GITHUB_APP_ID: 'Iv1.abcdef' }, 'GITHUB_APP_ID', /App ID, a number/],
    ['a key that is no PEM', { GITHUB_PRIVATE_KEY: 'not-a-key' }, 'GITHUB_PRIVATE_KEY', /not a PEM private key/],
    ['a missing key file', { GITHUB_PRIVATE_KEY_PATH: 'nowhere.pem' }, 'GITHUB_PRIVATE_KEY_PATH', /does not exist/],
    ['a key file that is no PEM', { GITHUB_PRIVATE_KEY_PATH: 'bad.pem' }, 'GITHUB_PRIVATE_KEY_PATH', /not a PEM private key/],
    [
      'a PEM key whose body is garbage',
      { GITHUB_PRIVATE_KEY: GARBAGE.replace(/\n/g, '\\n') },
      'GITHUB_PRIVATE_KEY',
      /not a readable private key: .*damaged or cut short/,
    ],
    ['a PEM key cut short', { GITHUB_PRIVATE_KEY: CUT }, 'GITHUB_PRIVATE_KEY', /not a readable private key/],
    [
      'a key file whose body is garbage',
      { GITHUB_PRIVATE_KEY_PATH: 'garbage.pem' },
      'GITHUB_PRIVATE_KEY_PATH',
      /garbage\.pem holds a PEM block that is not a readable private key/,
    ],
    ['an EC key', { GITHUB_PRIVATE_KEY: EC }, 'GITHUB_PRIVATE_KEY', /is a key of type ec, not an RSA key/],
    ['a secret with a space', { GITHUB_WEBHOOK_SECRET: 'a b' }, 'GITHUB_WEBHOOK_SECRET', /space or line break/],
    ['a plain-http API URL', { GITHUB_API_URL: 'http://ghe.example.com/api/v3' }, 'GITHUB_API_URL', /must use https/],
    ['a web URL that is no URL', { GITHUB_WEB_URL: 'github' }, 'GITHUB_WEB_URL', /./],
  ])('refuses %s', (_name, given, where, message) => {
    const env = { GITHUB_APP_ID: '1', GITHUB_PRIVATE_KEY: ESCAPED, GITHUB_WEBHOOK_SECRET: SECRET, ...given };
    if ('GITHUB_PRIVATE_KEY_PATH' in given) delete (env as Record<string, string>).GITHUB_PRIVATE_KEY;
    const problems = envProblems(env, { 'bad.pem': 'hello', 'garbage.pem': GARBAGE });
    const problem = problems.find((p) => p.where === where);
    expect(problem?.message).toMatch(message);
    // Where GitHub gives the key.
    if (where.startsWith('GITHUB_PRIVATE_KEY')) expect(problem?.hint).toMatch(/Private keys → Generate a private key/);
    // The key's text is never repeated in a problem.
    const said = JSON.stringify(problems);
    expect(said).not.toContain('PRIVATE KEY-----\\nMII');
    for (const line of [...BODY_LINES.slice(0, 3), GARBAGE.split('\n')[1] ?? '', EC.split('\n')[1] ?? '']) expect(said).not.toContain(line.slice(0, 16));
  });
});

describe('GitHub file keys', () => {
  it('has the documented defaults', () => {
    expect(fileGithub('')).toMatchObject({ handle: '@agent', repos: {}, labels: {}, allowedUsers: [], pullRequests: 'reviews', ciFailures: 0 });
  });

  it('reads repos, labels and users case-insensitively', () => {
    const config = fileGithub(
      'github:\n  handle: "@bot"\n  repos: { Acme/Web: { title: web }, "*": {} }\n  labels: { Agent: { config: { name: gh } } }\n  allowed_users: [OctoCat]\n  pull_requests: mentions\n  ci_failures: 2\n',
    );
    expect(config).toMatchObject({
      handle: '@bot',
      repos: { 'acme/web': { title: 'web' }, '*': {} },
      labels: { agent: { config: { name: 'gh' } } },
      allowedUsers: ['octocat'],
      pullRequests: 'mentions',
      ciFailures: 2,
    });
  });

  it.each([
    ['a repo without owner', 'github: { repos: { web: {} } }', `${F}: github.repos.web`, /owner\/name/],
    ['repos equal but for case', 'github: { repos: { acme/web: {}, Acme/Web: {} } }', `${F}: github.repos["Acme/Web"]`, /same repository as "acme\/web"/],
    ['labels equal but for case', 'github: { labels: { agent: {}, AGENT: {} } }', `${F}: github.labels.AGENT`, /same label as "agent"/],
    ['an unknown route key', 'github: { labels: { agent: { confg: {} } } }', `${F}: github.labels.agent.confg`, /unknown key/],
    ['a login with @', 'github: { allowed_users: ["@octocat"] }', `${F}: github.allowed_users[0]`, /not a GitHub login/],
    ['an unknown pull_requests mode', 'github: { pull_requests: all }', `${F}: github.pull_requests`, /one of: none, mentions, reviews/],
    ['negative ci_failures', 'github: { ci_failures: -1 }', `${F}: github.ci_failures`, /at least 0/],
    ['a two-word handle', 'github: { handle: "@my bot" }', `${F}: github.handle`, /single word/],
    ['an unknown key', 'github: { repo: {} }', `${F}: github.repo`, /unknown key/],
  ])('%s', (_name, yaml, where, message) => {
    const problems = problemsOf(() => loadConfig({ env: {}, cwd: tempDir({ [F]: yaml }) }));
    const problem = problems.find((p) => p.where === where);
    expect(problem, JSON.stringify(problems)).toBeDefined();
    expect(problem?.message).toMatch(message);
  });
});

describe('GitHub in config check', () => {
  it('says the key and secret are set, and nothing of them', () => {
    const config = loadConfig({
      env: { GITHUB_APP_ID: '123456', GITHUB_PRIVATE_KEY: ESCAPED, GITHUB_WEBHOOK_SECRET: SECRET },
      cwd: tempDir({ [F]: 'github: { repos: { acme/web: {} }, labels: { agent: {} } }' }),
    });
    const described = describeConfig(config) as { github: { privateKey: unknown; webhookSecret: unknown } };
    expect(described.github.privateKey).toMatch(/^set \(from env\), \d+ characters$/);
    expect(described.github.webhookSecret).toBe(`set (from env), ${SECRET.length} characters`);
    const fromFile = loadConfig({
      env: { GITHUB_APP_ID: '1', GITHUB_PRIVATE_KEY_PATH: 'app.pem', GITHUB_WEBHOOK_SECRET: SECRET },
      cwd: tempDir({ 'app.pem': PEM }),
    });
    expect((describeConfig(fromFile) as { github: { privateKey: unknown } }).github.privateKey).toMatch(/^set \(from file\), \d+ characters$/);
    const summary = integrationSummary(config);
    expect(summary).toContain(
      'GitHub: on (App 123456, webhook at POST /github/webhook; repos: 1 route: acme/web; labels: 1 route: agent; may start runs: write access; pull requests: reviews; handle @agent)',
    );
    const text = JSON.stringify(described) + summary.join('\n');
    expect(text).not.toContain(SECRET.slice(0, 8));
    expect(text).not.toContain(PEM.split('\n')[1]?.slice(0, 12));
  });
});
