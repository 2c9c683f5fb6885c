import { describe, expect, it } from 'vitest';
import { problemsOf, tempDir } from '../../../test/config/helpers.js';
import { describeConfig, integrationSummary } from '../../config/describe-config.js';
import { loadConfig } from '../../config/load-config.js';

/* Jira Cloud's variables and `jira:` keys (docs/configuration.md and docs/jira.md). */

const TOKEN = 'ATATT3xFfGF0-jira-api-token-0123456789';
const SECRET = 'jira-webhook-secret-0123456789';
const FULL = { JIRA_BASE_URL: 'https://acme.atlassian.net/', JIRA_EMAIL: 'bot@acme.example', JIRA_API_TOKEN: TOKEN, JIRA_WEBHOOK_SECRET: SECRET };
const F = 'agent-bridge.yml';
/** Slack on: a route's slack_channel needs it. */
const SLACK = { SLACK_BOT_TOKEN: 'xoxb-jira-config-test', SLACK_SIGNING_SECRET: 'jira-config-signing-secret' };

const withFile = (yaml: string, env: Record<string, string> = {}) => loadConfig({ env, cwd: tempDir({ [F]: yaml }) });
const lines = (problems: Array<{ where: string; message: string; hint?: string }>) => problems.map((p) => `${p.where}: ${p.message}`);

describe('Jira variables', () => {
  it('all four turn Jira on; the site is kept without its trailing slash, the secrets masked in config check', () => {
    const config = loadConfig({ env: FULL, cwd: tempDir() });
    expect(config.jira).toMatchObject({
      enabled: true,
      baseUrl: 'https://acme.atlassian.net',
      email: 'bot@acme.example',
      apiToken: TOKEN,
      webhookSecret: SECRET,
    });
    const shown = JSON.stringify(describeConfig(config)) + integrationSummary(config).join('\n');
    expect(shown).not.toContain(TOKEN);
    expect(shown).not.toContain(SECRET);
    expect(integrationSummary(config).join('\n')).toMatch(/Jira: on \(https:\/\/acme\.atlassian\.net, webhook at POST \/jira\/webhook/);
  });

  it('none of them: Jira is off, and the summary says how to turn it on', () => {
    const config = loadConfig({ env: {}, cwd: tempDir() });
    expect(config.jira.enabled).toBe(false);
    expect(integrationSummary(config).join('\n')).toMatch(/Jira: off — set JIRA_BASE_URL, JIRA_EMAIL, JIRA_API_TOKEN and JIRA_WEBHOOK_SECRET/);
  });

  it.each([['JIRA_BASE_URL'], ['JIRA_EMAIL'], ['JIRA_API_TOKEN'], ['JIRA_WEBHOOK_SECRET']])('a set without %s stops the start naming it', (missing) => {
    const env: Record<string, string> = { ...FULL };
    delete env[missing];
    const problems = problemsOf(() => loadConfig({ env, cwd: tempDir() }));
    expect(problems.map((problem) => problem.where)).toEqual([missing]);
    expect(problems[0]?.message).toMatch(/^Jira is half configured: .* is not — set it$/);
    expect(JSON.stringify(problems)).not.toContain(TOKEN);
    expect(JSON.stringify(problems)).not.toContain(SECRET);
  });

  it('only the base URL: every missing variable is named, the token with where Atlassian shows one', () => {
    const problems = problemsOf(() => loadConfig({ env: { JIRA_BASE_URL: 'https://acme.atlassian.net' }, cwd: tempDir() }));
    expect(problems.map((problem) => problem.where)).toEqual(['JIRA_EMAIL', 'JIRA_API_TOKEN', 'JIRA_WEBHOOK_SECRET']);
    expect(problems.find((problem) => problem.where === 'JIRA_API_TOKEN')?.hint).toMatch(/id\.atlassian\.com → Security → API tokens/);
    expect(problems.find((problem) => problem.where === 'JIRA_WEBHOOK_SECRET')?.hint).toMatch(/System → WebHooks/);
  });

  it.each([
    ['a URL that is not one', { JIRA_BASE_URL: 'acme.atlassian.net' }, 'JIRA_BASE_URL: is not a URL'],
    ['plain http to a remote site', { JIRA_BASE_URL: 'http://acme.atlassian.net' }, 'JIRA_BASE_URL: must use https'],
    ['a path after the site', { JIRA_BASE_URL: 'https://acme.atlassian.net/rest/api/3' }, 'JIRA_BASE_URL: must be the site alone'],
    ['an email without @', { JIRA_EMAIL: 'bot.acme.example' }, 'JIRA_EMAIL: is not an email address'],
    ['a token with a space', { JIRA_API_TOKEN: `Basic ${TOKEN}` }, 'JIRA_API_TOKEN: contains a space or line break'],
  ])('refuses %s', (_what, override, expected) => {
    const problems = problemsOf(() => loadConfig({ env: { ...FULL, ...override }, cwd: tempDir() }));
    expect(lines(problems).join('\n')).toContain(expected);
    expect(JSON.stringify(problems)).not.toContain(TOKEN);
  });

  it('http on loopback is allowed (tests, a local proxy)', () => {
    expect(loadConfig({ env: { ...FULL, JIRA_BASE_URL: 'http://127.0.0.1:8089' }, cwd: tempDir() }).jira.baseUrl).toBe('http://127.0.0.1:8089');
  });
});

describe('jira: keys', () => {
  it('the defaults mirror linear:', () => {
    const config = withFile('jira:\n');
    expect(config.jira).toEqual({
      enabled: false,
      handle: '@agent',
      followups: 'mentions',
      context: { messages: 20, characters: 8_000 },
      followupWindowMs: 2_000,
      cancelOnLabelRemoved: true,
      labels: {},
      companions: {},
      projects: [],
      allowedUsers: [],
      states: {},
    });
    expect(config.slack.linksIssuesOf).toEqual([]);
  });

  it('slack.link_jira_issues while Jira is off is warned of in Jira’s words; with Jira on, it is not', () => {
    const yaml = 'slack:\n  link_jira_issues: true\njira:\n  labels: { agent: {} }\n';
    expect(withFile(yaml, SLACK).warnings).toEqual([
      {
        where: `${F}: slack.link_jira_issues`,
        message: 'is true, but Jira is off: a mention naming a Jira issue starts its run without the issue',
        hint: 'turn Jira on with JIRA_BASE_URL, JIRA_EMAIL, JIRA_API_TOKEN and JIRA_WEBHOOK_SECRET, or set it to false',
      },
    ]);
    expect(withFile(yaml, { ...SLACK, ...FULL }).warnings).toEqual([]);
  });

  it('reads every key: labels (lower-cased) with routes and slack_channel, projects (upper-cased), states, context', () => {
    const config = withFile(
      [
        'slack:',
        '  link_jira_issues: true',
        'jira:',
        '  handle: "@bot"',
        '  followups: all',
        '  followup_window: 5s',
        '  cancel_on_label_removed: false',
        '  context: { messages: 5, characters: 2000 }',
        '  labels:',
        '    Agent: { config: { environment_id: env_web }, slack_channel: C0123ABCD }',
        '    agent-docs: {}',
        '  projects: [eng, WEB]',
        '  allowed_users: [5b10ac8d82e05b22cc7d4ef5, "557058:f58131cb-b67d-43c7-b30d-6b58d40bd077"]',
        '  states: { started: In Progress, pull_request: In Review }',
        '',
      ].join('\n'),
      SLACK,
    );
    expect(config.slack.linksIssuesOf.map(({ surface }) => surface)).toEqual(['jira']);
    expect(config.jira).toMatchObject({
      handle: '@bot',
      followups: 'all',
      followupWindowMs: 5_000,
      cancelOnLabelRemoved: false,
      context: { messages: 5, characters: 2_000 },
      labels: { agent: { config: { environment_id: 'env_web' } }, 'agent-docs': {} },
      companions: { agent: ['slack:C0123ABCD'] },
      projects: ['ENG', 'WEB'],
      allowedUsers: ['5b10ac8d82e05b22cc7d4ef5', '557058:f58131cb-b67d-43c7-b30d-6b58d40bd077'],
      states: { started: 'In Progress', pull_request: 'In Review' },
    });
  });

  it.each([
    ['teams (Linear’s key)', 'jira:\n  teams: [ENG]\n', `${F}: jira`, /unknown key|allowed keys/],
    ['a label with a space', 'jira:\n  labels:\n    "needs agent": {}\n', `${F}: jira.labels["needs agent"]`, /cannot contain spaces/],
    ['the same label twice', 'jira:\n  labels:\n    agent: {}\n    AGENT: {}\n', `${F}: jira.labels.AGENT`, /case-insensitive/],
    ['a project that is no key', 'jira:\n  projects: ["ENG-1"]\n', `${F}: jira.projects[0]`, /not a Jira project key/],
    [
      'a slack_channel that is no channel id',
      'jira:\n  labels:\n    agent: { slack_channel: general }\n',
      `${F}: jira.labels.agent.slack_channel`,
      /Slack channel ID/,
    ],
    ['an allowed user that is an email', 'jira:\n  allowed_users: [grace@acme.example]\n', `${F}: jira.allowed_users[0]`, /not an Atlassian account id/],
    ['allowed_users as one string', 'jira:\n  allowed_users: 5b10ac8d82e05b22cc7d4ef5\n', `${F}: jira.allowed_users`, /list|array/],
    ['a handle of two words', 'jira:\n  handle: "hey agent"\n', `${F}: jira.handle`, /single word/],
    ['followups that is neither', 'jira:\n  followups: some\n', `${F}: jira.followups`, /all|mentions/],
    ['link_jira_issues as yes', 'slack: { link_jira_issues: yes }\n', `${F}: slack.link_jira_issues`, /true or false/],
  ])('refuses %s', (_what, yaml, where, message) => {
    const problems = problemsOf(() => withFile(yaml));
    const found = problems.find((problem) => problem.where.startsWith(where));
    expect(found, lines(problems).join('\n')).toBeDefined();
    expect(`${found?.message ?? ''} ${found?.hint ?? ''}`).toMatch(message);
  });
});
