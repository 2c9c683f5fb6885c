import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/load-config.js';
import { ConfigError } from '../config/problems.js';
import { describeConfig } from '../config/describe-config.js';
import { consoleAccess } from './console-config.js';

const TOKEN = 'c'.repeat(32);
const CLIENT = { SLACK_CLIENT_ID: '1234.5678', SLACK_CLIENT_SECRET: 'client-secret-0123456789abcdef' };
const TEAMS_APP = '8d4f2c1a-6e3b-4a7d-b9c2-1e5f7a3d9b60';
const TENANT = '5c1a7e0d-2b9f-4e8a-9d3c-7f6b1a2e4c90';
const REAL_API = { AGENT_API_BASE_URL: 'https://api.example.com/api/v1', AGENT_API_KEY: 'k' };
const load = (env: Record<string, string>) => loadConfig({ env, cwd: '/nonexistent-agent-bridge-test' });

function problem(env: Record<string, string>) {
  try {
    load(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((p) => `${p.where}: ${p.message}`).join('\n');
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('console configuration', () => {
  it.each([
    ['a short token', { CONSOLE_ADMIN_TOKEN: 'short-token' }, /^CONSOLE_ADMIN_TOKEN: is too short \(11 characters\): it must have at least 32$/],
    ['a token with a space', { CONSOLE_ADMIN_TOKEN: `${TOKEN} x` }, /^CONSOLE_ADMIN_TOKEN: contains a space/],
    ['a PUBLIC_URL that is not a URL', { PUBLIC_URL: 'agent-bridge.example.com' }, /^PUBLIC_URL: /],
  ])('refuses %s, naming the variable and never its value', (_name, env: Record<string, string>, expected) => {
    const text = problem(env);
    expect(text).toMatch(expected);
    const token = env['CONSOLE_ADMIN_TOKEN'];
    if (token) expect(text).not.toContain(token);
  });

  it.each([
    ['a token and the real run API', { CONSOLE_ADMIN_TOKEN: TOKEN, AGENT_API_BASE_URL: 'https://api.example.com/api/v1', AGENT_API_KEY: 'k' }, 'token', false],
    ['the built-in emulator and no token', {}, 'one-time link', false],
    ['the real run API and no token', { AGENT_API_BASE_URL: 'https://api.example.com/api/v1', AGENT_API_KEY: 'k' }, 'off', false],
    ['a token behind https', { CONSOLE_ADMIN_TOKEN: TOKEN, PUBLIC_URL: 'https://bridge.example.com/' }, 'token', true],
  ])('with %s the console is %s', (_name, env, mode, secure) => {
    const access = consoleAccess(load(env));
    expect(access.mode).toBe(mode);
    if (access.mode !== 'off') expect(access.secureCookies).toBe(secure);
  });

  it('keeps PUBLIC_URL without its trailing slash', () => {
    expect(load({ PUBLIC_URL: 'https://bridge.example.com/' }).http.publicUrl).toBe('https://bridge.example.com');
  });

  it.each([
    [
      'a client id without its secret',
      { SLACK_CLIENT_ID: '1234.5678', PUBLIC_URL: 'https://b.example.com' },
      /^SLACK_CLIENT_SECRET: Sign in with Slack is half configured/,
    ],
    [
      'a client secret without its id',
      { SLACK_CLIENT_SECRET: CLIENT.SLACK_CLIENT_SECRET, PUBLIC_URL: 'https://b.example.com' },
      /^SLACK_CLIENT_ID: .*half configured/,
    ],
    ['Sign in with Slack without PUBLIC_URL', CLIENT, /^PUBLIC_URL: required for Sign in with Slack .*\/console\/auth\/slack\/callback/],
    [
      'a plain-http issuer elsewhere than this machine',
      { ...CLIENT, PUBLIC_URL: 'https://b.example.com', SLACK_OIDC_ISSUER: 'http://slack.example.com' },
      /^SLACK_OIDC_ISSUER: must use https/,
    ],
    ['an issuer that is not a URL', { ...CLIENT, PUBLIC_URL: 'https://b.example.com', SLACK_OIDC_ISSUER: 'slack.com' }, /^SLACK_OIDC_ISSUER: is not a URL/],
  ])('refuses %s, naming the variable and never the secret', (_name, env: Record<string, string>, expected) => {
    const text = problem(env);
    expect(text).toMatch(expected);
    expect(text).not.toContain(CLIENT.SLACK_CLIENT_SECRET);
  });

  it('says where the client id and secret are found and which redirect URL Slack must know', () => {
    const problems = (() => {
      try {
        load({ SLACK_CLIENT_ID: '1234.5678' });
      } catch (error) {
        if (error instanceof ConfigError) return error.problems;
      }
      return [];
    })();
    expect(problems.map((p) => p.hint).join('\n')).toContain('Basic Information → App Credentials');
    expect(problems.map((p) => p.hint).join('\n')).toContain('PUBLIC_URL/console/auth/slack/callback');
  });

  it.each([
    ['a real run API, no token', REAL_API, 'providers'],
    ['a token too', { ...REAL_API, CONSOLE_ADMIN_TOKEN: TOKEN }, 'token'],
    ['the built-in emulator', {}, 'one-time link'],
  ])('turns Sign in with Slack on with %s (console mode %s), with the redirect URL under PUBLIC_URL', (_name, env: Record<string, string>, mode) => {
    const access = consoleAccess(load({ ...env, ...CLIENT, PUBLIC_URL: 'https://bridge.example.com/', SLACK_OIDC_ISSUER: 'http://127.0.0.1:9999/' }));
    expect(access.mode).toBe(mode);
    if (access.mode === 'off') throw new Error('the console should be on');
    expect(
      access.providers.map(({ surface, provider }) => ({ surface, id: provider.id, name: provider.name, secret: provider.secret, log: provider.logFields })),
    ).toEqual([
      {
        surface: 'slack',
        id: 'slack',
        name: 'Sign in with Slack',
        secret: CLIENT.SLACK_CLIENT_SECRET,
        log: { issuer: 'http://127.0.0.1:9999', redirectUrl: 'https://bridge.example.com/console/auth/slack/callback' },
      },
    ]);
    expect(access.admins).toEqual([]);
  });

  it('reads console.admins as person ids, each in its canonical form (a Slack user ID bare, as it always was)', () => {
    const config = load({ CONSOLE_ADMIN_TOKEN: TOKEN });
    const access = consoleAccess({ ...config, console: { ...config.console, admins: ['slack:U0ADMIN01', 'U0ADMIN02'] } });
    expect(access.mode !== 'off' && access.admins).toEqual(['U0ADMIN01', 'U0ADMIN02']);
  });

  it('defaults the issuer to Slack, and config check shows the client secret only as set and its length', () => {
    const config = load({ ...CLIENT, PUBLIC_URL: 'https://bridge.example.com' });
    expect(config.console.slackSignIn?.issuer).toBe('https://slack.com');
    const shown = JSON.stringify(describeConfig(config));
    expect(shown).not.toContain(CLIENT.SLACK_CLIENT_SECRET);
    expect(shown).toContain(`"clientSecret":"set (from env), ${CLIENT.SLACK_CLIENT_SECRET.length} characters"`);
  });

  it('leaves the console off without a token, the emulator or a sign-in provider, and says how to turn it on', () => {
    const access = consoleAccess(load(REAL_API));
    expect(access).toEqual({
      mode: 'off',
      why:
        'AGENT_API_BASE_URL names a real run API and neither CONSOLE_ADMIN_TOKEN nor Sign in with Slack nor Sign in with Microsoft is set (only the built-in emulator opens it without them); ' +
        'set CONSOLE_ADMIN_TOKEN (at least 32 characters) or SLACK_CLIENT_ID and SLACK_CLIENT_SECRET or TEAMS_CLIENT_ID, TEAMS_CLIENT_SECRET and TEAMS_TENANT_ID to turn the web console on',
    });
  });

  it('turns Sign in with Microsoft on with Teams’ Entra app, after Slack’s, against its tenant’s issuer', () => {
    const teams = { TEAMS_CLIENT_ID: TEAMS_APP, TEAMS_CLIENT_SECRET: 'teams-client-secret-0123456789', TEAMS_TENANT_ID: TENANT.toUpperCase() };
    const access = consoleAccess(load({ ...REAL_API, ...CLIENT, ...teams, PUBLIC_URL: 'https://bridge.example.com' }));
    expect(access.mode).toBe('providers');
    if (access.mode === 'off') throw new Error('the console should be on');
    expect(
      access.providers.map(({ surface, provider }) => ({ surface, id: provider.id, name: provider.name, secret: provider.secret, log: provider.logFields })),
    ).toEqual([
      expect.objectContaining({ surface: 'slack', id: 'slack' }),
      {
        surface: 'teams',
        id: 'microsoft',
        name: 'Sign in with Microsoft',
        secret: teams.TEAMS_CLIENT_SECRET,
        log: {
          issuer: `https://login.microsoftonline.com/${TENANT}/v2.0`,
          redirectUrl: 'https://bridge.example.com/console/auth/microsoft/callback',
          tenantId: TENANT,
        },
      },
    ]);
  });
});
