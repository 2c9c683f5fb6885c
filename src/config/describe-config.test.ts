import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { describeConfig, integrationSummary, maskSecret } from './describe-config.js';
import { loadConfig } from './load-config.js';
import { ConfigError } from './problems.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

function tempDir(files: Record<string, string> = {}): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-bridge-describe-'));
  dirs.push(dir);
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), content);
  return dir;
}

const FULL_YAML = fs.readFileSync(fileURLToPath(new URL('./fixtures/full.yml', import.meta.url)), 'utf8');

const SECRETS = {
  AGENT_API_KEY: 'run-api-key-SECRET-0123456789',
  SLACK_BOT_TOKEN: 'xoxb-SECRET-bot-token-0123456789',
  // Not starting with SECRET: the summary names variables such as TEAMS_CLIENT_SECRET of surfaces that are off.
  SLACK_SIGNING_SECRET: 'sgn-SECRET-0123456789abcdef',
  SLACK_APP_TOKEN: 'xapp-SECRET-app-token-0123456789',
  LINEAR_API_KEY: 'lin_api_SECRET_0123456789',
  LINEAR_ACCESS_TOKEN: 'lin_oauth_SECRET_0123456789',
  LINEAR_WEBHOOK_SECRET: 'lin_wh_SECRET_0123456789',
  GITHUB_WEBHOOK_SECRET: 'gh_wh_SECRET_0123456789',
  JIRA_API_TOKEN: 'ATATT-SECRET-jira-token-0123456789',
  JIRA_WEBHOOK_SECRET: 'whs_SECRET_jira_0123456789',
};
const PEM = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
/** The rest of the GitHub App: its key is a secret too (checked by its body's first line). */
const GITHUB_APP = { GITHUB_APP_ID: '123456', GITHUB_PRIVATE_KEY: PEM.trim().replace(/\n/g, '\\n') };
/** Jira's variables that are not secrets (with SECRETS, Jira is on). */
const JIRA_SITE = { JIRA_BASE_URL: 'https://acme.atlassian.net', JIRA_EMAIL: 'bot@acme.example' };
/** Secret values in the fixture file (route config headers). */
const FILE_SECRETS = ['mcp-header-secret-value-123'];
const ALL_SECRETS = [...Object.values(SECRETS), ...FILE_SECRETS];

function fullConfig() {
  const cwd = tempDir({ 'agent-bridge.yml': FULL_YAML });
  return loadConfig({ env: { ...SECRETS, ...GITHUB_APP, ...JIRA_SITE, AGENT_API_BASE_URL: 'https://agents.example.com/api/v1' }, cwd });
}

describe('maskSecret', () => {
  it.each<[string, 'env' | '.env' | 'file' | undefined, string]>([
    ['xoxb-1234567890-abcdef', 'env', 'set (from env), 22 characters'],
    ['short-secret', '.env', 'set (from .env), 12 characters'],
    ['x', 'file', 'set (from file), 1 character'],
    ['xoxb-1234567890-abcdef', undefined, 'set, 22 characters'],
  ])('%j from %s → %j', (secret, source, masked) => {
    expect(maskSecret(secret, source)).toBe(masked);
  });

  it('leaves an unset secret unset', () => {
    expect(maskSecret(undefined)).toBeUndefined();
  });
});

describe('describeConfig', () => {
  it('shows the effective configuration with every secret masked', () => {
    const described = describeConfig(fullConfig());
    const text = JSON.stringify(described);
    for (const secret of ALL_SECRETS) expect(text).not.toContain(secret);
    expect(described).toMatchObject({
      agentApi: { baseUrl: 'https://agents.example.com/api/v1', apiKey: 'set (from env), 29 characters', emulated: false },
      slack: { mode: 'socket', botToken: 'set (from env), 32 characters', appToken: 'set (from env), 32 characters', followups: 'mentions' },
      linear: { accessToken: 'set (from env), 27 characters', webhookSecret: 'set (from env), 24 characters', handle: '@bot' },
      jira: { apiToken: 'set (from env), 34 characters', webhookSecret: 'set (from env), 26 characters', baseUrl: 'https://acme.atlassian.net' },
      tracker: { intervalMs: 30_000, interval: '30s', pageSize: 250 },
      intake: { retryWindow: '2h', dedupeRetention: '14d' },
    });
  });

  it('shows METRICS_TOKEN as set, where from and how long, never its value', () => {
    const config = loadConfig({ env: { METRICS_TOKEN: 'metrics-SECRET-0123456789' }, cwd: tempDir() });
    const described = describeConfig(config);
    expect(described['http']).toMatchObject({ metricsToken: 'set (from env), 25 characters' });
    expect(JSON.stringify(described)).not.toContain('metrics-SECRET');
  });

  it('masks secret-looking fields inside route configs but keeps the rest', () => {
    const described = describeConfig(fullConfig()) as { defaults: { config: { environment_id: unknown; mcp_servers: Record<string, unknown> } } };
    expect(described.defaults.config.environment_id).toBe('env_main');
    expect(described.defaults.config.mcp_servers.github).toEqual({
      url: 'https://mcp.example.com/github',
      headers: { Authorization: 'set (from file), 34 characters' },
    });
  });

  it('shows which store is used: a PostgreSQL URL with its password masked', () => {
    const config = loadConfig({ env: { DATABASE_URL: 'postgres://bridge:Pw-s3cret-77@db.example:5432/app?sslmode=verify-full' }, cwd: tempDir() });
    const described = describeConfig(config);
    expect(described['database']).toEqual({ kind: 'postgres', url: 'postgres://bridge:****@db.example:5432/app?sslmode=verify-full' });
    expect(integrationSummary(config)).toContain(
      'Database: PostgreSQL at postgres://bridge:****@db.example:5432/app?sslmode=verify-full (several replicas may share it)',
    );
    expect(JSON.stringify(described) + integrationSummary(config).join('\n')).not.toContain('Pw-s3cret-77');
  });

  it('says of each secret only whether it is set, where from and its length: no prefix of any secret (issue 16)', () => {
    const cwd = tempDir({
      'agent-bridge.yml': FULL_YAML,
      '.env': `SLACK_BOT_TOKEN=${SECRETS.SLACK_BOT_TOKEN}\nLINEAR_WEBHOOK_SECRET=from-dotenv-but-env-wins\n`,
    });
    const env: Record<string, string> = { ...SECRETS, ...GITHUB_APP, ...JIRA_SITE, AGENT_API_BASE_URL: 'https://agents.example.com/api/v1' };
    delete env['SLACK_BOT_TOKEN'];
    const config = loadConfig({ env, cwd });
    const described = describeConfig(config) as { slack: { botToken: unknown }; linear: { webhookSecret: unknown } };
    expect(described.slack.botToken).toBe(`set (from .env), ${SECRETS.SLACK_BOT_TOKEN.length} characters`);
    expect(described.linear.webhookSecret).toBe(`set (from env), ${SECRETS.LINEAR_WEBHOOK_SECRET.length} characters`);
    const text = JSON.stringify(described) + integrationSummary(config).join('\n');
    for (const secret of [...ALL_SECRETS, 'Bearer mcp-header-secret-value-123', PEM.split('\n')[1] ?? '']) {
      for (let length = 4; length <= secret.length; length++) expect(text, `a ${length}-character prefix of a secret`).not.toContain(secret.slice(0, length));
    }
  });

  it('shows unset secrets as null', () => {
    const described = describeConfig(loadConfig({ env: {}, cwd: tempDir() })) as { agentApi: { apiKey: unknown }; slack: { botToken: unknown } };
    expect(described.agentApi.apiKey).toBeNull();
    expect(described.slack.botToken).toBeNull();
  });
});

describe('problems never contain secrets', () => {
  it.each([
    ['partial Slack and Linear sets', { SLACK_BOT_TOKEN: SECRETS.SLACK_BOT_TOKEN, LINEAR_WEBHOOK_SECRET: SECRETS.LINEAR_WEBHOOK_SECRET }],
    [
      'secrets with spaces',
      {
        SLACK_BOT_TOKEN: `${SECRETS.SLACK_BOT_TOKEN} x`,
        SLACK_SIGNING_SECRET: SECRETS.SLACK_SIGNING_SECRET,
        AGENT_API_BASE_URL: 'https://a.example/api/v1',
        AGENT_API_KEY: `Bearer ${SECRETS.AGENT_API_KEY}`,
      },
    ],
    ['swapped Slack tokens', { SLACK_BOT_TOKEN: SECRETS.SLACK_APP_TOKEN, SLACK_APP_TOKEN: SECRETS.SLACK_BOT_TOKEN }],
    ['a Linear key without secret', { LINEAR_API_KEY: SECRETS.LINEAR_API_KEY, LINEAR_ACCESS_TOKEN: SECRETS.LINEAR_ACCESS_TOKEN }],
  ])('%s', (_name, env) => {
    const cwd = tempDir({ 'agent-bridge.yml': `${FULL_YAML}\nbogus: 1\n` });
    let error: unknown;
    try {
      loadConfig({ env, cwd });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const text = `${(error as ConfigError).message}\n${JSON.stringify((error as ConfigError).problems)}`;
    for (const secret of ALL_SECRETS) expect(text).not.toContain(secret);
  });
});

describe('integrationSummary', () => {
  it('says how to turn on what is off', () => {
    const lines = integrationSummary(loadConfig({ env: {}, cwd: tempDir() }));
    expect(lines).toHaveLength(9);
    expect(lines[0]).toMatch(/^Run API: EMULATED .*set AGENT_API_BASE_URL .* and AGENT_API_KEY/);
    expect(lines[1]).toMatch(/^Slack: off — set SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET \(HTTP\) or SLACK_APP_TOKEN/);
    expect(lines[2]).toBe('Microsoft Teams: off — set TEAMS_CLIENT_ID, TEAMS_CLIENT_SECRET and TEAMS_TENANT_ID to turn it on');
    expect(lines[3]).toMatch(/^Linear: off — set LINEAR_API_KEY .* and LINEAR_WEBHOOK_SECRET/);
    expect(lines[4]).toMatch(/^GitHub: off — set GITHUB_APP_ID, GITHUB_PRIVATE_KEY_PATH .* and GITHUB_WEBHOOK_SECRET/);
    expect(lines[5]).toBe('GitLab: off — set GITLAB_TOKEN and GITLAB_WEBHOOK_SECRET to turn it on (docs/gitlab.md)');
    expect(lines[6]).toMatch(/^Jira: off — set JIRA_BASE_URL, JIRA_EMAIL, JIRA_API_TOKEN and JIRA_WEBHOOK_SECRET/);
    expect(lines[7]).toMatch(/^Schedules: none/);
    expect(lines[8]).toMatch(/^Database: SQLite at .*agent-bridge\.db — set DATABASE_URL=postgres:\/\/… instead to run several replicas/);
  });

  it('says what is on', () => {
    const lines = integrationSummary(fullConfig());
    expect(lines).toEqual([
      'Run API: https://agents.example.com/api/v1 (key set)',
      expect.stringMatching(
        /^Slack: on \(Socket Mode; channels: 3 routes: C0123ABCD, G0999PRIV, \*; follow-ups: mentions; may start runs: 2 allowed users \(of this workspace and 2 allowed teams\)\)$/,
      ),
      'Microsoft Teams: off — set TEAMS_CLIENT_ID, TEAMS_CLIENT_SECRET and TEAMS_TENANT_ID to turn it on',
      expect.stringMatching(
        /^Linear: on \(webhook at POST \/linear\/webhook; OAuth access token .*labels: 2 routes: agent, needs review; teams ENG, OPS; may start runs: members; handle @bot\)$/,
      ),
      expect.stringMatching(
        /^GitHub: on \(App 123456, webhook at POST \/github\/webhook; repos: none \(every repository ignored\); labels: none; .*; pull requests: reviews; handle @agent\)$/,
      ),
      'GitLab: off — set GITLAB_TOKEN and GITLAB_WEBHOOK_SECRET to turn it on (docs/gitlab.md)',
      'Jira: on (https://acme.atlassian.net, webhook at POST /jira/webhook; labels: none (no label starts a run); all projects; may start runs: who may edit the issue; handle @agent)',
      'Schedules: 1 of 2 enabled: nightly-deps (disabled), weekly.report',
      expect.stringMatching(/^Database: SQLite at /),
    ]);
    for (const secret of ALL_SECRETS) expect(lines.join('\n')).not.toContain(secret);
  });

  it('names HTTP mode and the Slack route', () => {
    const config = loadConfig({
      env: { SLACK_BOT_TOKEN: SECRETS.SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET: SECRETS.SLACK_SIGNING_SECRET },
      cwd: tempDir(),
    });
    expect(integrationSummary(config)[1]).toMatch(/^Slack: on \(HTTP, events at POST \/slack\/events; .*may start runs: people of this workspace\)$/);
  });
});
