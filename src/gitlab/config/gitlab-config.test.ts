import { describe, expect, it } from 'vitest';
import { problemsOf, tempDir } from '../../../test/config/helpers.js';
import { describeConfig, integrationSummary } from '../../config/describe-config.js';
import { loadConfig } from '../../config/load-config.js';
import { secretValues } from '../../config/secret-values.js';

const TOKEN = 'glpat-config-test-0123456789abcdef';
const SECRET = 'gitlab-hook-secret-0123456789';
const SIGNING = `whsec_${Buffer.from('a signing key of thirty-two byte').toString('base64')}`;
const ON = { GITLAB_TOKEN: TOKEN, GITLAB_WEBHOOK_SECRET: SECRET };
const F = 'agent-bridge.yml';

const load = (env: Record<string, string>, yaml?: string) => loadConfig({ env, cwd: tempDir(yaml === undefined ? {} : { [F]: yaml }) });
const problems = (env: Record<string, string>, yaml?: string) => problemsOf(() => load(env, yaml));

describe('GitLab environment', () => {
  it('turns GitLab on with the token and secret, on GitLab.com by default, with the keys at their defaults', () => {
    const gitlab = load(ON).gitlab;
    expect(gitlab).toEqual({
      enabled: true,
      token: TOKEN,
      webhookSecret: SECRET,
      url: 'https://gitlab.com',
      handle: '@agent',
      projects: {},
      labels: {},
      companions: { projects: {}, labels: {} },
      allowedUsers: [],
      mergeRequests: 'reviews',
      pipelineFailures: 0,
    });
    expect(load({}).gitlab.enabled).toBe(false);
  });

  it('takes a self-managed instance by GITLAB_URL (no trailing slash; http only on loopback) and a whsec_ signing token', () => {
    expect(load({ ...ON, GITLAB_URL: 'https://gitlab.example.com/' }).gitlab.url).toBe('https://gitlab.example.com');
    expect(load({ ...ON, GITLAB_URL: 'http://127.0.0.1:8080' }).gitlab.url).toBe('http://127.0.0.1:8080');
    expect(load({ ...ON, GITLAB_WEBHOOK_SECRET: SIGNING }).gitlab.webhookSecret).toBe(SIGNING);
  });

  it.each([
    ['the token alone', { GITLAB_TOKEN: TOKEN }, 'GITLAB_WEBHOOK_SECRET', /Settings → Webhooks/],
    ['the secret alone', { GITLAB_WEBHOOK_SECRET: SECRET }, 'GITLAB_TOKEN', /Access tokens/],
  ])('a partial set stops the start, naming what is missing and where GitLab shows it: %s', (_name, env, missing, where) => {
    const found = problems(env);
    expect(found.map((problem) => problem.where)).toEqual([missing]);
    expect(found[0]?.message).toMatch(/GitLab is half configured/);
    expect(found[0]?.hint).toMatch(where);
    expect(JSON.stringify(found)).not.toContain(TOKEN);
    expect(JSON.stringify(found)).not.toContain(SECRET);
  });

  it.each([
    ['GITLAB_URL', { GITLAB_URL: 'http://gitlab.example.com' }, 'must use https'],
    ['GITLAB_URL', { GITLAB_URL: 'not a url' }, 'is not a URL'],
    ['GITLAB_TOKEN', { GITLAB_TOKEN: `Bearer ${TOKEN}` }, 'contains a space'],
    ['GITLAB_WEBHOOK_SECRET', { GITLAB_WEBHOOK_SECRET: 'whsec_!!!' }, 'is not a signing token'],
  ])('%s that cannot be one is refused, naming it', (where, env, message) => {
    const found = problems({ ...ON, ...env }).find((problem) => problem.where === where);
    expect(found?.message).toContain(message);
  });
});

describe('gitlab: in agent-bridge.yml', () => {
  it('routes projects (subgroups too) and labels lower-cased, takes usernames and the merge request keys', () => {
    const yaml = [
      'gitlab:',
      '  handle: "@bot"',
      '  projects: { Acme/Web: { config: { environment_id: env_web } }, acme/platform/api: {}, "*": {} }',
      '  labels: { Agent: { slack_channel: C0123ABCD } }',
      '  allowed_users: [Alice, bob.smith]',
      '  merge_requests: mentions',
      '  pipeline_failures: 2',
    ].join('\n');
    const gitlab = load({ ...ON, SLACK_BOT_TOKEN: 'xoxb-gitlab-config-1', SLACK_SIGNING_SECRET: 'gitlab-config-signing' }, yaml).gitlab;
    expect(Object.keys(gitlab.projects)).toEqual(['acme/web', 'acme/platform/api', '*']);
    expect(gitlab.projects['acme/web']?.config).toMatchObject({ environment_id: 'env_web' });
    expect(Object.keys(gitlab.labels)).toEqual(['agent']);
    expect(gitlab.companions.labels).toEqual({ agent: ['slack:C0123ABCD'] });
    expect(gitlab).toMatchObject({ handle: '@bot', allowedUsers: ['alice', 'bob.smith'], mergeRequests: 'mentions', pipelineFailures: 2 });
  });

  it.each([
    ['a project without its group', 'gitlab: { projects: { web: {} } }', 'gitlab.projects.web', /is not a project/],
    ['a username with @', 'gitlab: { allowed_users: ["@alice"] }', 'gitlab.allowed_users[0]', /not a GitLab username/],
    ['an unknown merge_requests mode', 'gitlab: { merge_requests: all }', 'gitlab.merge_requests', /one of: none, mentions, reviews/],
    ['negative pipeline_failures', 'gitlab: { pipeline_failures: -1 }', 'gitlab.pipeline_failures', /at least 0/],
    ['the same project twice in two cases', 'gitlab: { projects: { acme/web: {}, ACME/web: {} } }', 'gitlab.projects', /project/],
    ['an unknown key', 'gitlab: { project: {} }', 'gitlab.project', /unknown key/],
  ])('refuses %s, naming the key', (_name, yaml, where, message) => {
    const found = problems({}, yaml);
    const problem = found.find((p) => p.where.startsWith(`${F}: ${where}`));
    expect(problem, JSON.stringify(found)).toBeDefined();
    expect(problem?.message).toMatch(message);
  });
});

describe('GitLab in config check', () => {
  it('says the token and secret are set and nothing of them, summarises, warns without a project, and has the logger scrub both', () => {
    const config = load(ON, 'gitlab: { labels: { agent: {} } }');
    const described = describeConfig(config) as { gitlab: { token: unknown; webhookSecret: unknown } };
    expect(described.gitlab.token).toBe(`set (from env), ${TOKEN.length} characters`);
    expect(described.gitlab.webhookSecret).toBe(`set (from env), ${SECRET.length} characters`);
    const summary = integrationSummary(config);
    expect(summary).toContain(
      'GitLab: on (https://gitlab.com, webhook at POST /gitlab/webhook, secret token; projects: none (every project ignored); labels: 1 route: agent; may start runs: Developers and above; handle @agent)',
    );
    expect((config.warnings ?? []).map((warning) => warning.where)).toEqual([`${F}: gitlab.projects`]);
    expect(JSON.stringify(described) + summary.join('\n')).not.toContain(TOKEN);
    expect(JSON.stringify(described)).not.toContain(SECRET);
    expect(secretValues(config)).toEqual(expect.arrayContaining([TOKEN, SECRET]));
  });
});
