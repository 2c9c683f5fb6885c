import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from './load-config.js';
import { ConfigError, type ConfigProblem } from './problems.js';
import type { AppConfig } from './types.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

function tempDir(files: Record<string, string> = {}): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-bridge-env-'));
  dirs.push(dir);
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), content);
  return dir;
}

function problemsOf(env: Record<string, string | undefined>, cwd = tempDir()): ConfigProblem[] {
  try {
    loadConfig({ env, cwd });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

const BOT = 'xoxb-1111-2222-abcdefabcdef';
const SIGNING = 'signing-secret-0123456789abcdef';
const APP = 'xapp-1-A0123-4567-abcdef0123';
const LINEAR_KEY = 'lin_api_0123456789abcdef';
const LINEAR_TOKEN = 'lin_oauth_0123456789abcdef';
const LINEAR_SECRET = 'lin_wh_0123456789abcdef';
const API_KEY = 'run-api-key-0123456789abcdef';

describe('environment: valid', () => {
  it('reads a full environment', () => {
    const cwd = tempDir();
    const config = loadConfig({
      cwd,
      env: {
        AGENT_API_BASE_URL: 'https://agents.example.com/api/v1',
        AGENT_API_KEY: API_KEY,
        SLACK_BOT_TOKEN: BOT,
        SLACK_SIGNING_SECRET: SIGNING,
        SLACK_API_URL: 'http://127.0.0.1:9999/api/',
        LINEAR_API_KEY: LINEAR_KEY,
        LINEAR_WEBHOOK_SECRET: LINEAR_SECRET,
        LINEAR_API_URL: 'http://localhost:4000/graphql',
        DATABASE_PATH: 'state/bridge.db',
        PORT: '8080',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'debug',
      },
    });
    expect(config.agentApi).toEqual({ baseUrl: 'https://agents.example.com/api/v1', apiKey: API_KEY, emulated: false });
    expect(config.slack).toMatchObject({
      enabled: true,
      mode: 'http',
      botToken: BOT,
      signingSecret: SIGNING,
      apiUrl: 'http://127.0.0.1:9999/api/',
    });
    expect(config.slack.appToken).toBeUndefined();
    expect(config.linear).toMatchObject({
      enabled: true,
      apiKey: LINEAR_KEY,
      webhookSecret: LINEAR_SECRET,
      apiUrl: 'http://localhost:4000/graphql',
    });
    expect(config.database).toEqual({ kind: 'sqlite', path: path.join(cwd, 'state', 'bridge.db') });
    expect(config.http).toEqual({ port: 8080, host: '127.0.0.1' });
    expect(config.logLevel).toBe('debug');
  });

  it.each([
    [
      'strips a trailing slash from the base URL',
      { AGENT_API_BASE_URL: 'http://localhost:8787/api/v1/', AGENT_API_KEY: 'k' },
      (c: AppConfig) => c.agentApi.baseUrl,
      'http://localhost:8787/api/v1',
    ],
    [
      'keeps a base URL path prefix',
      { AGENT_API_BASE_URL: 'https://x.example/agents/api/v1', AGENT_API_KEY: 'k' },
      (c: AppConfig) => c.agentApi.baseUrl,
      'https://x.example/agents/api/v1',
    ],
    [
      'prefers Socket Mode when both Slack secrets are set',
      { SLACK_BOT_TOKEN: BOT, SLACK_SIGNING_SECRET: SIGNING, SLACK_APP_TOKEN: APP },
      (c: AppConfig) => c.slack.mode,
      'socket',
    ],
    ['runs Socket Mode with an app token alone', { SLACK_BOT_TOKEN: BOT, SLACK_APP_TOKEN: APP }, (c: AppConfig) => c.slack.mode, 'socket'],
    ['adds the trailing slash to SLACK_API_URL', { SLACK_API_URL: 'http://127.0.0.1:9/api' }, (c: AppConfig) => c.slack.apiUrl, 'http://127.0.0.1:9/api/'],
    [
      'turns Linear on with an OAuth access token',
      { LINEAR_ACCESS_TOKEN: LINEAR_TOKEN, LINEAR_WEBHOOK_SECRET: LINEAR_SECRET },
      (c: AppConfig) => c.linear.enabled,
      true,
    ],
    ['keeps :memory: as the database path', { DATABASE_PATH: ':memory:' }, (c: AppConfig) => c.database, { kind: 'sqlite', path: ':memory:' }],
    [
      'selects PostgreSQL with a postgres:// DATABASE_URL',
      { DATABASE_URL: 'postgres://bridge:pw@db.example:6543/app?sslmode=require' },
      (c: AppConfig) => c.database.kind === 'postgres' && [c.database.target, c.database.maskedUrl, c.database.url],
      [
        { host: 'db.example', port: 6543, database: 'app' },
        'postgres://bridge:****@db.example:6543/app?sslmode=require',
        'postgres://bridge:pw@db.example:6543/app?sslmode=require',
      ],
    ],
    [
      'selects PostgreSQL with a postgresql:// DATABASE_URL, default port, database named after the user',
      { DATABASE_URL: 'postgresql://bridge@db.example' },
      (c: AppConfig) => c.database.kind === 'postgres' && c.database.target,
      { host: 'db.example', port: 5432, database: 'bridge' },
    ],
    [
      'masks a password given as a query parameter',
      { DATABASE_URL: 'postgres://db.example/app?user=bridge&password=pw2' },
      (c: AppConfig) => c.database.kind === 'postgres' && [c.database.maskedUrl, c.database.password],
      ['postgres://db.example/app?user=bridge&password=****', 'pw2'],
    ],
    ['uses SQLite without DATABASE_URL', {}, (c: AppConfig) => c.database.kind, 'sqlite'],
    ['accepts port 0', { PORT: '0' }, (c: AppConfig) => c.http.port, 0],
    ['accepts port 65535', { PORT: '65535' }, (c: AppConfig) => c.http.port, 65535],
    ['reads LOG_LEVEL case-insensitively', { LOG_LEVEL: 'WARN' }, (c: AppConfig) => c.logLevel, 'warn'],
    [
      'treats empty values as unset',
      { SLACK_BOT_TOKEN: '', PORT: '', AGENT_API_BASE_URL: '', LOG_LEVEL: '  ' },
      (c: AppConfig) => [c.slack.enabled, c.http.port, c.agentApi.emulated, c.logLevel],
      [false, 3000, true, 'info'],
    ],
    ['trims values', { PORT: ' 4000\n' }, (c: AppConfig) => c.http.port, 4000],
    ['ignores AGENT_API_KEY without a base URL (emulator)', { AGENT_API_KEY: 'k' }, (c: AppConfig) => c.agentApi.emulated, true],
  ])('%s', (_name, env, pick, expected) => {
    expect(pick(loadConfig({ env, cwd: tempDir() }))).toEqual(expected);
  });
});

describe('environment: invalid', () => {
  it.each([
    [
      'a base URL without key',
      { AGENT_API_BASE_URL: 'https://a.example/api/v1' },
      'AGENT_API_KEY',
      /required when AGENT_API_BASE_URL is set — set it to the run API key \(it is sent as a bearer token\)/,
    ],
    ['a base URL that is no URL', { AGENT_API_BASE_URL: 'agents.example.com/api/v1', AGENT_API_KEY: 'k' }, 'AGENT_API_BASE_URL', /is not a URL/],
    ['a base URL with another scheme', { AGENT_API_BASE_URL: 'ftp://a.example/api/v1', AGENT_API_KEY: 'k' }, 'AGENT_API_BASE_URL', /http or https/],
    ['a base URL not ending in /api/v1', { AGENT_API_BASE_URL: 'https://a.example/api/v2', AGENT_API_KEY: 'k' }, 'AGENT_API_BASE_URL', /must end in \/api\/v1/],
    ['a base URL with credentials', { AGENT_API_BASE_URL: 'https://u:p@a.example/api/v1', AGENT_API_KEY: 'k' }, 'AGENT_API_BASE_URL', /user:password@/],
    ['a base URL with a query', { AGENT_API_BASE_URL: 'https://a.example/api/v1?x=1', AGENT_API_KEY: 'k' }, 'AGENT_API_BASE_URL', /query/],
    ['a port above 65535', { PORT: '65536' }, 'PORT', /0 to 65535/],
    ['a negative port', { PORT: '-1' }, 'PORT', /0 to 65535/],
    ['a port that is no number', { PORT: 'http' }, 'PORT', /whole number/],
    ['a fractional port', { PORT: '3000.5' }, 'PORT', /whole number/],
    ['an unknown log level', { LOG_LEVEL: 'verbose' }, 'LOG_LEVEL', /one of: fatal, error, warn, info, debug, trace, silent/],
    [
      'a Slack bot token alone',
      { SLACK_BOT_TOKEN: BOT },
      'SLACK_SIGNING_SECRET',
      /neither SLACK_SIGNING_SECRET \(HTTP mode\) nor SLACK_APP_TOKEN \(Socket Mode\)/,
    ],
    ['a signing secret without bot token', { SLACK_SIGNING_SECRET: SIGNING }, 'SLACK_BOT_TOKEN', /SLACK_SIGNING_SECRET is set, but SLACK_BOT_TOKEN is not/],
    ['an app token without bot token', { SLACK_APP_TOKEN: APP }, 'SLACK_BOT_TOKEN', /SLACK_APP_TOKEN is set, but SLACK_BOT_TOKEN is not/],
    ['an app token as bot token', { SLACK_BOT_TOKEN: APP, SLACK_SIGNING_SECRET: SIGNING }, 'SLACK_BOT_TOKEN', /holds an app-level token/],
    ['a bot token as app token', { SLACK_BOT_TOKEN: BOT, SLACK_APP_TOKEN: BOT }, 'SLACK_APP_TOKEN', /holds a bot token/],
    ['a Linear API key alone', { LINEAR_API_KEY: LINEAR_KEY }, 'LINEAR_WEBHOOK_SECRET', /LINEAR_API_KEY is set, but LINEAR_WEBHOOK_SECRET is not/],
    ['a Linear access token alone', { LINEAR_ACCESS_TOKEN: LINEAR_TOKEN }, 'LINEAR_WEBHOOK_SECRET', /LINEAR_ACCESS_TOKEN is set/],
    ['a Linear webhook secret alone', { LINEAR_WEBHOOK_SECRET: LINEAR_SECRET }, 'LINEAR_API_KEY', /neither LINEAR_API_KEY nor LINEAR_ACCESS_TOKEN/],
    ['a plain-http Linear URL', { LINEAR_API_URL: 'http://linear.example/graphql' }, 'LINEAR_API_URL', /must use https/],
    ['a Slack URL that is no URL', { SLACK_API_URL: 'slack' }, 'SLACK_API_URL', /is not a URL/],
    ['a pasted "Bearer" prefix', { AGENT_API_BASE_URL: 'https://a.example/api/v1', AGENT_API_KEY: 'Bearer abc' }, 'AGENT_API_KEY', /space or line break/],
  ])('%s', (_name, env, where, message) => {
    const problems = problemsOf(env);
    const match = problems.find((problem) => problem.where === where && message.test(problem.message));
    expect(match, JSON.stringify(problems, null, 2)).toBeDefined();
  });

  it.each([
    [
      'both DATABASE_URL and DATABASE_PATH',
      { DATABASE_URL: 'postgres://bridge:Pw-s3cret-77@db.example:5432/app', DATABASE_PATH: 'x.db' },
      /both DATABASE_URL \(PostgreSQL\) and DATABASE_PATH \(SQLite\) are set/,
    ],
    [
      'a DATABASE_URL of another scheme',
      { DATABASE_URL: 'mysql://bridge:Pw-s3cret-77@db.example/app' },
      /must be a postgres:\/\/ or postgresql:\/\/ URL, not mysql:/,
    ],
    ['a SQLite file as DATABASE_URL', { DATABASE_URL: 'sqlite:///data/bridge.db' }, /not sqlite: — for SQLite, unset it and set DATABASE_PATH/],
    ['a DATABASE_URL that is no URL', { DATABASE_URL: 'host=db user=bridge password=Pw-s3cret-77' }, /is not a URL/],
    ['a DATABASE_URL without host', { DATABASE_URL: 'postgres:///app?user=bridge&password=Pw-s3cret-77' }, /names no host/],
  ])('%s: DATABASE_URL problem, the password never shown', (_name, env, message) => {
    const problems = problemsOf(env);
    expect(
      problems.find((problem) => problem.where === 'DATABASE_URL' && message.test(problem.message)),
      JSON.stringify(problems),
    ).toBeDefined();
    expect(JSON.stringify(problems)).not.toContain('Pw-s3cret-77');
  });

  it.each([
    ['a Slack client id without its secret', { SLACK_CLIENT_ID: '123.456', PUBLIC_URL: 'https://bridge.example.com' }, ['SLACK_CLIENT_SECRET']],
    ['Sign in with Slack without PUBLIC_URL', { SLACK_CLIENT_ID: '123.456', SLACK_CLIENT_SECRET: 'client-secret-0123' }, ['PUBLIC_URL']],
  ])('%s: said once', (_name, env, where) => {
    expect(problemsOf(env).map((problem) => problem.where)).toEqual(where);
  });

  it('hints where to find the Slack signing secret', () => {
    const [problem] = problemsOf({ SLACK_BOT_TOKEN: BOT });
    expect(problem?.hint).toContain('Basic Information → App Credentials');
  });
});

describe('.env file', () => {
  it('is read from cwd', () => {
    const cwd = tempDir({ '.env': `PORT=4000\nSLACK_BOT_TOKEN=${BOT}\nSLACK_SIGNING_SECRET="${SIGNING}"\n# comment\n` });
    const config = loadConfig({ env: {}, cwd });
    expect(config.http.port).toBe(4000);
    expect(config.slack).toMatchObject({ enabled: true, botToken: BOT, signingSecret: SIGNING });
  });

  it('loses to the real environment', () => {
    const cwd = tempDir({ '.env': 'PORT=4000\nHOST=10.0.0.1\nLOG_LEVEL=debug\n' });
    const config = loadConfig({ env: { PORT: '5000', LOG_LEVEL: '' }, cwd });
    expect(config.http).toEqual({ port: 5000, host: '10.0.0.1' });
    expect(config.logLevel).toBe('debug'); // an empty real value counts as unset
  });

  it('may name the config file', () => {
    const cwd = tempDir({ '.env': 'AGENT_BRIDGE_CONFIG=other.yml\n', 'other.yml': 'tracker: { page_size: 9 }' });
    expect(loadConfig({ env: {}, cwd }).tracker.pageSize).toBe(9);
  });

  it('reports its problems like the real environment', () => {
    const cwd = tempDir({ '.env': 'PORT=nope\n' });
    expect(problemsOf({}, cwd).map((problem) => problem.where)).toEqual(['PORT']);
  });

  it('changes neither process.env nor the given environment', () => {
    const cwd = tempDir({ '.env': 'AGENT_BRIDGE_TEST_ONLY=1\nPORT=4000\n' });
    const env = Object.freeze({ HOST: 'localhost' });
    loadConfig({ env, cwd });
    expect(process.env.AGENT_BRIDGE_TEST_ONLY).toBeUndefined();
    expect(env).toEqual({ HOST: 'localhost' });
  });
});
