import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fileSchema } from './file-schema.js';
import { loadConfig } from './load-config.js';
import { problemsOf, tempDir } from '../../test/config/helpers.js';
import { ConfigError } from './problems.js';
import type { AppConfig } from './types.js';

const withFile = (yaml: string) => loadConfig({ env: {}, cwd: tempDir({ 'agent-bridge.yml': yaml }) });
const fileProblems = (yaml: string) => problemsOf(() => withFile(yaml));
const FULL_YAML = fs.readFileSync(fileURLToPath(new URL('./fixtures/full.yml', import.meta.url)), 'utf8');
const F = 'agent-bridge.yml';
const SLACK = { SLACK_BOT_TOKEN: 'xoxb-load-config-test', SLACK_SIGNING_SECRET: 'load-config-signing-secret' };
const LINEAR = { LINEAR_API_KEY: 'lin_api_load_config_test', LINEAR_WEBHOOK_SECRET: 'load-config-linear-secret' };

describe('loadConfig: valid files', () => {
  it('uses every documented default without a file', () => {
    const cwd = tempDir();
    const config = loadConfig({ env: {}, cwd });
    expect(config).toEqual<AppConfig>({
      configFile: undefined,
      secretSources: {},
      warnings: [],
      agentApi: { baseUrl: undefined, apiKey: undefined, emulated: true },
      slack: {
        enabled: false,
        mode: 'off',
        apiUrl: 'https://slack.com/api/',
        followups: 'all',
        context: { messages: 20, characters: 8_000 },
        followupWindowMs: 2_000,
        allowedUsers: [],
        allowedTeams: [],
        channels: {},
        triggers: {},
        linksIssuesOf: [],
        unfurlDomains: [],
      },
      teams: {
        enabled: false,
        openIdMetadataUrl: 'https://login.botframework.com/v1/.well-known/openidconfiguration',
        loginUrl: 'https://login.microsoftonline.com',
        serviceUrls: [],
        followups: 'mentions',
        context: { messages: 20, characters: 8_000 },
        allowedUsers: [],
        channels: {},
      },
      linear: {
        enabled: false,
        apiUrl: 'https://api.linear.app/graphql',
        handle: '@agent',
        followups: 'mentions',
        context: { messages: 20, characters: 8_000 },
        followupWindowMs: 2_000,
        cancelOnLabelRemoved: true,
        labels: {},
        companions: {},
        projects: {},
        teams: [],
        allowedUsers: [],
        states: {},
      },
      github: {
        enabled: false,
        apiUrl: 'https://api.github.com',
        webUrl: 'https://github.com',
        handle: '@agent',
        repos: {},
        labels: {},
        companions: { repos: {}, labels: {} },
        allowedUsers: [],
        pullRequests: 'reviews',
        ciFailures: 0,
      },
      gitlab: {
        enabled: false,
        url: 'https://gitlab.com',
        handle: '@agent',
        projects: {},
        labels: {},
        companions: { projects: {}, labels: {} },
        allowedUsers: [],
        mergeRequests: 'reviews',
        pipelineFailures: 0,
      },
      jira: {
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
      },
      defaults: { config: {} },
      tracker: { intervalMs: 10_000, pageSize: 100 },
      intake: { retryWindowMs: 15 * 60_000, dedupeRetentionMs: 7 * 86_400_000 },
      schedules: [],
      audit: { retentionMs: 90 * 86_400_000 },
      console: { admins: [] },
      people: { attribution: 'service' },
      limits: { perPerson: { concurrent: 0, perDay: 0, creditsPerMonth: 0 } },
      database: { kind: 'sqlite', path: path.join(cwd, 'data', 'agent-bridge.db') },
      http: { port: 3000, host: '0.0.0.0' },
      logLevel: 'info',
    });
  });

  it.each([
    ['service', {}, { attribution: 'service' }],
    ['personal_if_connected', { AGENT_BRIDGE_SECRET: 's'.repeat(32) }, { attribution: 'personal_if_connected', secret: 's'.repeat(32) }],
    ['personal_required', { AGENT_BRIDGE_SECRET: 's'.repeat(40) }, { attribution: 'personal_required', secret: 's'.repeat(40) }],
  ])('reads people.attribution %s', (attribution, env, people) => {
    const cwd = tempDir({ 'agent-bridge.yml': `people:\n  attribution: ${attribution}\n` });
    expect(loadConfig({ env, cwd }).people).toEqual(people);
  });

  it.each([
    ['personal_required without AGENT_BRIDGE_SECRET', 'personal_required', {}, /required when people.attribution is personal_required/],
    ['a short AGENT_BRIDGE_SECRET', 'service', { AGENT_BRIDGE_SECRET: 'short-secret' }, /too short \(12 characters\)/],
    ['an unknown attribution', 'everyone', {}, /attribution/],
  ])('refuses %s', (_what, attribution, env, message) => {
    const cwd = tempDir({ 'agent-bridge.yml': `people:\n  attribution: ${attribution}\n` });
    const problems = problemsOf(() => loadConfig({ env, cwd }));
    expect(problems.map((problem) => `${problem.where}: ${problem.message}`).join('\n')).toMatch(message);
    expect(JSON.stringify(problems)).not.toContain('short-secret');
  });

  it('reads METRICS_TOKEN, and refuses a short one without showing it', () => {
    const cwd = tempDir();
    expect(loadConfig({ env: { METRICS_TOKEN: 'm'.repeat(16) }, cwd }).http.metricsToken).toBe('m'.repeat(16));
    const problems = problemsOf(() => loadConfig({ env: { METRICS_TOKEN: 'short-metrics' }, cwd }));
    expect(problems.map((problem) => `${problem.where}: ${problem.message}`)).toEqual([
      'METRICS_TOKEN: is too short (13 characters): it must have at least 16',
    ]);
    expect(JSON.stringify(problems)).not.toContain('short-metrics');
  });

  it('reads linear.allowed_users (Linear user ids, lower-cased)', () => {
    expect(withFile('linear:\n  allowed_users: [0A1B2C3D-0000-4000-8000-0000000user9]\n').linear.allowedUsers).toEqual([
      '0a1b2c3d-0000-4000-8000-0000000user9',
    ]);
  });

  it('reads console.admins: persons, Slack ones bare or written slack:', () => {
    expect(withFile('console:\n  admins: [U0123ABCD, W0456EFGH, slack:U0789IJKL, SLACK:W0999MNOP]\n').console).toEqual({
      admins: ['U0123ABCD', 'W0456EFGH', 'U0789IJKL', 'W0999MNOP'],
    });
  });

  it('reads slack.allowed_users: Slack user ids, bare or written slack:', () => {
    expect(withFile('slack:\n  allowed_users: [U0123ABCD, slack:W0456EFGH, SLACK:U0789IJKL]\n').slack.allowedUsers).toEqual([
      'U0123ABCD',
      'W0456EFGH',
      'U0789IJKL',
    ]);
  });

  it.each([
    ['an empty file', ''],
    ['only comments', '# nothing yet\n'],
    ['empty sections', 'defaults:\ntracker:\nintake:\nslack:\nlinear:\nschedules:\n'],
    ['empty objects', 'defaults: {}\ntracker: {}\nslack: { channels: {} }\nschedules: []\n'],
  ])('%s gives the defaults', (_name, yaml) => {
    const config = withFile(yaml);
    expect(config.tracker).toEqual({ intervalMs: 10_000, pageSize: 100 });
    expect(config.slack.followups).toBe('all');
    expect(config.linear.handle).toBe('@agent');
    expect(config.schedules).toEqual([]);
    expect(config.configFile).toMatch(/agent-bridge\.yml$/);
  });

  it('reads every key of a full file', () => {
    // Slack and Linear on: the file names a Slack channel and a Linear issue.
    const config = loadConfig({ env: { ...SLACK, ...LINEAR }, cwd: tempDir({ [F]: FULL_YAML }) });
    expect(config.defaults).toEqual({
      title: 'Agent run',
      config: {
        environment_id: 'env_main',
        model_id: 'model-large',
        mcp_servers: {
          github: {
            url: 'https://mcp.example.com/github',
            headers: { Authorization: 'Bearer mcp-header-secret-value-123' },
          },
        },
        future_field: { passes: 'through' },
      },
    });
    expect(config.tracker).toEqual({ intervalMs: 30_000, pageSize: 250 });
    expect(config.intake).toEqual({ retryWindowMs: 7_200_000, dedupeRetentionMs: 14 * 86_400_000 });
    expect(config.audit).toEqual({ retentionMs: 30 * 86_400_000 });
    expect(config.slack).toMatchObject({
      followups: 'mentions',
      allowedUsers: ['U0123ABCD', 'W0456EFGH'],
      allowedTeams: ['T0PARTNER1', 'E0PARTNER1'],
      channels: {
        C0123ABCD: { config: { environment_id: 'env_web', name: 'web' } },
        G0999PRIV: { agent_identity_uid: 'foreman-1', config: { name: 'private' } },
        '*': { factory_uid: 'factory-7' },
      },
      linksIssuesOf: [expect.objectContaining({ surface: 'linear' })],
      unfurlDomains: ['app.example.dev'],
    });
    expect(config.linear).toMatchObject({
      handle: '@bot',
      followups: 'all',
      cancelOnLabelRemoved: false,
      labels: {
        agent: { config: { environment_id: 'env_api' }, title: 'From Linear' },
        'needs review': { factory_uid: 'factory-9' },
      },
      companions: { agent: ['slack:C0777DEVS'] },
      teams: ['ENG', 'OPS'],
      states: { started: 'In Progress', pull_request: 'In Review' },
    });
    expect(config.schedules).toEqual([
      {
        name: 'nightly-deps',
        cron: '0 3 * * 1-5',
        timezone: 'Europe/Berlin',
        prompt: 'Update the dependencies and open a pull request.',
        title: 'Nightly dependency update',
        config: { environment_id: 'env_api' },
        overlap: 'allow',
        catchUp: 'latest',
        enabled: false,
        pauseAfterFailures: 3,
        notify: { slackChannel: 'C0999ZZZZ', linearIssue: 'ENG-42' },
      },
      {
        name: 'weekly.report',
        cron: '30 0 9 * * mon',
        timezone: 'UTC',
        prompt: 'Write the weekly report.',
        factory_uid: 'factory-1',
        overlap: 'skip',
        catchUp: 'none',
        enabled: true,
        pauseAfterFailures: 0,
        notify: {},
      },
    ]);
  });

  it('keeps defaults.config absent when the defaults dispatch to a factory', () => {
    expect(withFile('defaults: { factory_uid: f-1 }').defaults).toEqual({ factory_uid: 'f-1' });
  });

  it('treats an empty route value as a route with no overrides', () => {
    expect(withFile('slack:\n  channels:\n    C0123ABCD:\n').slack.channels).toEqual({ C0123ABCD: {} });
  });
});

describe('loadConfig: invalid files report the key path', () => {
  it.each([
    ['a duration without unit', 'tracker: { interval: 10 }', `${F}: tracker.interval`, /no unit — write e\.g\. 10s/],
    ['a duration with a space', 'tracker: { interval: 10 s }', `${F}: tracker.interval`, /not a duration/],
    ['an interval below 1s', 'tracker: { interval: 500ms }', `${F}: tracker.interval`, /at least 1s/],
    ['a bad retry window', 'intake: { retry_window: soon }', `${F}: intake.retry_window`, /not a duration/],
    ['a short dedupe retention', 'intake: { dedupe_retention: 30m }', `${F}: intake.dedupe_retention`, /at least 1h/],
    ['a short audit retention', 'audit: { retention: 2h }', `${F}: audit.retention`, /at least 1d/],
    ['page_size 0', 'tracker: { page_size: 0 }', `${F}: tracker.page_size`, /at least 1/],
    ['page_size 501', 'tracker: { page_size: 501 }', `${F}: tracker.page_size`, /at most 500/],
    ['page_size 1.5', 'tracker: { page_size: 1.5 }', `${F}: tracker.page_size`, /whole number/],
    ['page_size as text', 'tracker: { page_size: many }', `${F}: tracker.page_size`, /must be a number, found text/],
    ['an unknown top-level key', 'trackers: {}', `${F}: trackers`, /unknown key/],
    ['an unknown nested key', 'tracker: { intervall: 5s }', `${F}: tracker.intervall`, /unknown key/],
    ['an unknown route key', 'slack: { channels: { C0123ABCD: { confg: {} } } }', `${F}: slack.channels.C0123ABCD.confg`, /unknown key/],
    ['an unknown schedule key', 'schedules: [{ name: a, cron: "* * * * *", prompt: p, timezon: UTC }]', `${F}: schedules[0].timezon`, /unknown key/],
    ['mcp_servers as a list', 'defaults: { config: { mcp_servers: [a] } }', `${F}: defaults.config.mcp_servers`, /must be a mapping/],
    ['a non-text config name', 'slack: { channels: { C0123ABCD: { config: { name: 5 } } } }', `${F}: slack.channels.C0123ABCD.config.name`, /must be text/],
    ['a channel name instead of an ID', 'slack: { channels: { general: {} } }', `${F}: slack.channels.general`, /channel ID or "\*"/],
    ['a user name instead of an ID', 'slack: { allowed_users: ["@alice"] }', `${F}: slack.allowed_users[0]`, /not a Slack user ID/],
    [
      'a team by domain instead of ID',
      'slack: { allowed_teams: [T0123ABCD, acme.slack.com] }',
      `${F}: slack.allowed_teams[1]`,
      /not a Slack team or enterprise ID/,
    ],
    ['a user ID as a team', 'slack: { allowed_teams: [U0123ABCD] }', `${F}: slack.allowed_teams[0]`, /T0123ABCD \(a workspace\) or E0123ABCD/],
    ['an admin by name instead of ID', 'console: { admins: [U0123ABCD, alice] }', `${F}: console.admins[1]`, /not a person id — use a Slack user ID/],
    ['an unknown followups mode', 'slack: { followups: some }', `${F}: slack.followups`, /one of: all, mentions \(found "some"\)/],
    ['a yes instead of true', 'linear: { cancel_on_label_removed: yes }', `${F}: linear.cancel_on_label_removed`, /true or false/],
    ['an empty handle', 'linear: { handle: "" }', `${F}: linear.handle`, /must not be empty/],
    ['a two-word handle', 'linear: { handle: "@my bot" }', `${F}: linear.handle`, /single word/],
    ['a Linear user by email', 'linear: { allowed_users: [ada@example.com] }', `${F}: linear.allowed_users[0]`, /not a Linear user id/],
    [
      'a label channel by name',
      'linear: { labels: { agent: { slack_channel: "#dev" } } }',
      `${F}: linear.labels.agent.slack_channel`,
      /not a Slack channel ID/,
    ],
    [
      'slack_channel on a Slack channel route',
      'slack: { channels: { C0123ABCD: { slack_channel: C0777DEVS } } }',
      `${F}: slack.channels.C0123ABCD`,
      /unknown key/,
    ],
    ['a yes instead of true for link_linear_issues', 'slack: { link_linear_issues: yes }', `${F}: slack.link_linear_issues`, /true or false/],
    ['an unfurl domain with a scheme', 'slack: { unfurl_domains: ["https://app.example.com"] }', `${F}: slack.unfurl_domains[0]`, /not a domain name/],
    ['an unfurl domain with a path', 'slack: { unfurl_domains: [app.example.com/sessions] }', `${F}: slack.unfurl_domains[0]`, /not a domain name/],
    ['labels equal but for case', 'linear: { labels: { Agent: {}, agent: {} } }', `${F}: linear.labels.agent`, /same label as "Agent"/],
    [
      'factory_uid with config',
      'slack: { channels: { C0123ABCD: { factory_uid: f, config: {} } } }',
      `${F}: slack.channels.C0123ABCD.factory_uid`,
      /cannot be combined with config/,
    ],
    [
      'factory_uid with agent_identity_uid',
      'schedules: [{ name: a, cron: "* * * * *", prompt: p, factory_uid: f, agent_identity_uid: u }]',
      `${F}: schedules[0].factory_uid`,
      /schedule "a": cannot be combined with agent_identity_uid/,
    ],
    [
      'a bad cron, by schedule name',
      'schedules: [{ name: a, cron: "* * * * *", prompt: p }, { name: nightly, cron: "0 25 * * *", prompt: p }]',
      `${F}: schedules[1].cron`,
      /schedule "nightly": cron "0 25 \* \* \*": hour "25" is out of range 0–23/,
    ],
    [
      'a bad timezone, by schedule name',
      'schedules: [{ name: nightly, cron: "0 3 * * *", timezone: Mars/Olympus, prompt: p }]',
      `${F}: schedules[0].timezone`,
      /schedule "nightly": is not an IANA time zone/,
    ],
    [
      'duplicate schedule names',
      'schedules: [{ name: dup, cron: "* * * * *", prompt: p }, { name: dup, cron: "* * * * *", prompt: q }]',
      `${F}: schedules[1].name`,
      /duplicate schedule name "dup" \(also schedules\[0\]\)/,
    ],
    ['a missing prompt', 'schedules: [{ name: a, cron: "* * * * *" }]', `${F}: schedules[0].prompt`, /schedule "a": is required/],
    ['an empty prompt', 'schedules: [{ name: a, cron: "* * * * *", prompt: "  " }]', `${F}: schedules[0].prompt`, /must not be empty/],
    ['a bad schedule name', 'schedules: [{ name: "my job", cron: "* * * * *", prompt: p }]', `${F}: schedules[0].name`, /letters, digits/],
    [
      'a bad notify issue',
      'schedules: [{ name: a, cron: "* * * * *", prompt: p, notify: { linear_issue: "42" } }]',
      `${F}: schedules[0].notify.linear_issue`,
      /ENG-42/,
    ],
    [
      'a negative pause_after_failures',
      'schedules: [{ name: a, cron: "* * * * *", prompt: p, pause_after_failures: -1 }]',
      `${F}: schedules[0].pause_after_failures`,
      /at least 0/,
    ],
    ['an empty schedule entry', 'schedules:\n  -\n', `${F}: schedules[0]`, /must be a mapping/],
    ['a list at the top level', '- a\n- b\n', F, /must be a mapping of keys/],
    ['a YAML syntax error', 'tracker:\n  interval: 10s\n  page_size: [1, 2\n', `${F}: line`, /YAML syntax error/],
    ['a duplicate YAML key', 'tracker: {}\ntracker: {}\n', `${F}: line 2, column 1`, /YAML syntax error: Map keys must be unique/],
  ])('%s', (_name, yaml, where, message) => {
    const problems = fileProblems(yaml);
    const match = problems.find((problem) => problem.where.startsWith(where) && message.test(problem.message));
    expect(match, JSON.stringify(problems, null, 2)).toBeDefined();
  });

  it('a file that is no mapping is told every top-level key it may have', () => {
    const [problem] = fileProblems('- a\n');
    const keys = Object.keys(fileSchema.shape);
    expect(keys).toEqual(expect.arrayContaining(['slack', 'github', 'jira', 'console', 'limits']));
    expect(keys.filter((key) => !problem?.message.includes(key))).toEqual([]);
  });

  it('says where a syntax error is (line and column)', () => {
    const problems = fileProblems('tracker:\n  interval: 10s\n\tpage_size: 3\n');
    expect(problems).toEqual([
      {
        where: 'agent-bridge.yml: line 3, column 1',
        message: 'YAML syntax error: Tabs are not allowed as indentation',
        hint: expect.any(String),
      },
    ]);
  });

  it('suggests the key an unknown key was probably meant to be', () => {
    const [problem] = fileProblems('tracker: { page_sise: 5 }');
    expect(problem?.hint).toContain('did you mean "page_size"?');
    expect(problem?.hint).toContain('interval, page_size');
  });

  it('lets unknown fields inside a route config through', () => {
    const config = withFile('slack: { channels: { C0123ABCD: { config: { new_api_field: [1, 2], name: web } } } }');
    expect(config.slack.channels.C0123ABCD?.config).toEqual({ new_api_field: [1, 2], name: 'web' });
  });

  it('reports several problems at once, each on its own line', () => {
    const cwd = tempDir({
      'agent-bridge.yml': [
        'tracker: { interval: 1x, page_size: 0 }',
        'slack: { colour: blue }',
        'schedules:',
        '  - { name: a, cron: "* * *", prompt: p }',
        '  - { name: a, cron: "* * * * *", prompt: p, timezone: Nowhere/Land }',
      ].join('\n'),
    });
    let error: unknown;
    try {
      loadConfig({ env: { PORT: 'eighty', SLACK_BOT_TOKEN: 'xoxb-abc' }, cwd });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const configError = error as ConfigError;
    expect(configError.problems.map((problem) => problem.where)).toEqual([
      'PORT',
      'SLACK_SIGNING_SECRET',
      `${F}: tracker.interval`,
      `${F}: tracker.page_size`,
      `${F}: slack.colour`,
      `${F}: schedules[0].cron`,
      `${F}: schedules[1].timezone`,
      `${F}: schedules[1].name`,
    ]);
    const lines = configError.message.split('\n');
    expect(lines).toHaveLength(1 + configError.problems.length);
    expect(lines[0]).toBe('Invalid configuration (8 problems):');
    configError.problems.forEach((problem) => expect(configError.message).toContain(`${problem.where}: ${problem.message}`));
  });
});

describe('loadConfig: approval on surfaces’ routes (issue 31)', () => {
  const load = (yaml: string, env: Record<string, string> = SLACK) => loadConfig({ env, cwd: tempDir({ 'agent-bridge.yml': yaml }) });

  it('reads approval on a Slack channel route (buttons in the request’s thread) and a Linear label route (in its slack_channel)', () => {
    const config = load(
      [
        'slack:',
        '  channels:',
        '    C0PROD0001: { approval: { approvers: [U0LEAD0001, slack:U0LEAD0002] } }',
        'linear:',
        '  labels:',
        '    prod: { slack_channel: C0PROD0001, approval: { approvers: [U0LEAD0001], expires: 2h } }',
      ].join('\n'),
    );
    expect(config.slack.channels['C0PROD0001']?.approval).toEqual({
      approvers: ['U0LEAD0001', 'U0LEAD0002'],
      expiresMs: 24 * 3_600_000,
      approverPlaces: ['slack:U0LEAD0001', 'slack:U0LEAD0002'],
    });
    expect(config.linear.labels['prod']?.approval).toEqual({
      approvers: ['U0LEAD0001'],
      expiresMs: 2 * 3_600_000,
      place: 'slack:C0PROD0001',
      approverPlaces: ['slack:U0LEAD0001'],
    });
  });

  it.each([
    [
      'no approvers',
      'slack: { channels: { C0PROD0001: { approval: { approvers: [] } } } }',
      `${F}: slack.channels.C0PROD0001.approval.approvers`,
      /at least 1/,
    ],
    [
      'an approver by name',
      'slack: { channels: { C0PROD0001: { approval: { approvers: [alice] } } } }',
      `${F}: slack.channels.C0PROD0001.approval.approvers[0]`,
      /Slack user ID/,
    ],
    [
      'a bad expiry',
      'slack: { channels: { C0PROD0001: { approval: { approvers: [U0LEAD0001], expires: soon } } } }',
      `${F}: slack.channels.C0PROD0001.approval.expires`,
      /not a duration/,
    ],
    [
      'a GitHub repository route without a Slack place',
      'github: { repos: { acme/web: { approval: { approvers: [U0LEAD0001] } } } }',
      `${F}: github.repos["acme/web"].approval`,
      /needs slack_channel/,
    ],
    [
      'a Jira route without a Slack place',
      'jira: { labels: { prod: { approval: { approvers: [U0LEAD0001] } } } }',
      `${F}: jira.labels.prod.approval`,
      /needs slack_channel/,
    ],
    [
      'a Linear route without a Slack place',
      'linear: { labels: { prod: { approval: { approvers: [U0LEAD0001] } } } }',
      `${F}: linear.labels.prod.approval`,
      /needs slack_channel/,
    ],
  ])('refuses %s, naming the key path', (_what, yaml, where, message) => {
    const problems = problemsOf(() => load(yaml));
    expect(problems).toContainEqual(expect.objectContaining({ where, message: expect.stringMatching(message) }));
  });

  it('reads approval and slack_channel on GitHub routes (buttons in that channel; its runs get a thread there)', () => {
    const config = load(
      'github:\n  repos:\n    Acme/Web: { slack_channel: C0PROD0001, approval: { approvers: [U0LEAD0001] } }\n  labels:\n    Ship: { slack_channel: C0SHIP0001 }\n',
    );
    expect(config.github.repos['acme/web']?.approval).toEqual({
      approvers: ['U0LEAD0001'],
      expiresMs: 24 * 3_600_000,
      place: 'slack:C0PROD0001',
      approverPlaces: ['slack:U0LEAD0001'],
    });
    expect(config.github.companions).toEqual({ repos: { 'acme/web': ['slack:C0PROD0001'] }, labels: { ship: ['slack:C0SHIP0001'] } });
  });

  it('reads approval on a Jira label route (buttons in its slack_channel, as Linear’s)', () => {
    const config = load('jira:\n  labels:\n    prod: { slack_channel: C0PROD0001, approval: { approvers: [U0LEAD0001], expires: 1h } }\n');
    expect(config.jira.labels['prod']?.approval).toEqual({
      approvers: ['U0LEAD0001'],
      expiresMs: 3_600_000,
      place: 'slack:C0PROD0001',
      approverPlaces: ['slack:U0LEAD0001'],
    });
  });

  it('refuses approval while Slack is off: approvers could not be asked', () => {
    const problems = problemsOf(() => load('slack: { channels: { C0PROD0001: { approval: { approvers: [U0LEAD0001] } } } }', {}));
    expect(problems).toContainEqual(
      expect.objectContaining({ where: `${F}: slack.channels.C0PROD0001.approval`, message: expect.stringMatching(/needs Slack/) }),
    );
  });
});
