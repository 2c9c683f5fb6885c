import { describe, expect, it } from 'vitest';
import { problemsOf, tempDir } from '../../../test/config/helpers.js';
import { describeConfig } from '../../config/describe-config.js';
import { loadConfig } from '../../config/load-config.js';
import { secretValues } from '../../config/secret-values.js';

const CLIENT = '8d4f2c1a-6e3b-4a7d-b9c2-1e5f7a3d9b60';
const TENANT = '5c1a7e0d-2b9f-4e8a-9d3c-7f6b1a2e4c90';
const SECRET = 'teams~client.secret_0123456789';
const ON = { TEAMS_CLIENT_ID: CLIENT, TEAMS_CLIENT_SECRET: SECRET, TEAMS_TENANT_ID: TENANT, PUBLIC_URL: 'https://bridge.example' };
const ADA = 'a1d2a3e4-0000-4a00-8a00-00000000ada1';
const CHANNEL = '19:2b7c9e4f1a6d4c8e9f0a1b2c3d4e5f60@thread.tacv2';
const F = 'agent-bridge.yml';

const load = (env: Record<string, string>, yaml?: string) => loadConfig({ env, cwd: tempDir(yaml === undefined ? {} : { [F]: yaml }) });
const problems = (env: Record<string, string>, yaml?: string) => problemsOf(() => load(env, yaml));

describe('Teams environment', () => {
  it('turns Teams on with its app id, secret and tenant, with Microsoft’s services by default and Sign in with Microsoft on the same app', () => {
    const config = load(ON);
    expect(config.teams).toMatchObject({
      enabled: true,
      clientId: CLIENT,
      clientSecret: SECRET,
      tenantId: TENANT,
      openIdMetadataUrl: 'https://login.botframework.com/v1/.well-known/openidconfiguration',
      loginUrl: 'https://login.microsoftonline.com',
      serviceUrls: [],
      followups: 'mentions',
    });
    expect(config.console.microsoftSignIn).toEqual({
      clientId: CLIENT,
      clientSecret: SECRET,
      tenantId: TENANT,
      issuer: `https://login.microsoftonline.com/${TENANT}/v2.0`,
    });
    expect(JSON.stringify(describeConfig(config))).not.toContain(SECRET);
    expect(secretValues(config)).toContain(SECRET);
  });

  it.each([
    ['the id alone', { TEAMS_CLIENT_ID: CLIENT, PUBLIC_URL: 'https://b.example' }, ['TEAMS_CLIENT_SECRET', 'TEAMS_TENANT_ID']],
    ['the id and secret', { TEAMS_CLIENT_ID: CLIENT, TEAMS_CLIENT_SECRET: SECRET, PUBLIC_URL: 'https://b.example' }, ['TEAMS_TENANT_ID']],
    ['the secret without the id', { TEAMS_CLIENT_SECRET: SECRET }, ['TEAMS_CLIENT_ID']],
    ['everything but PUBLIC_URL', { TEAMS_CLIENT_ID: CLIENT, TEAMS_CLIENT_SECRET: SECRET, TEAMS_TENANT_ID: TENANT }, ['PUBLIC_URL']],
  ])('a partial set stops the start, naming what is missing and where to find it: %s', (_name, env, missing) => {
    const found = problems(env);
    expect(found.map((problem) => problem.where)).toEqual(missing);
    for (const problem of found) expect(problem.hint).toMatch(/Entra|Azure|PUBLIC_URL|https/);
    expect(JSON.stringify(found)).not.toContain(SECRET);
  });

  it.each([
    ['TEAMS_CLIENT_ID', { TEAMS_CLIENT_ID: 'my-bot' }, 'is not an app (client) id'],
    ['TEAMS_TENANT_ID', { TEAMS_TENANT_ID: 'contoso' }, 'is not a tenant id'],
    ['TEAMS_CLIENT_SECRET', { TEAMS_CLIENT_SECRET: `${SECRET} x` }, 'contains a space'],
    ['TEAMS_LOGIN_URL', { TEAMS_LOGIN_URL: 'http://login.example' }, 'must use https'],
    ['TEAMS_OPENID_METADATA_URL', { TEAMS_OPENID_METADATA_URL: 'not a url' }, 'is not a URL'],
    ['TEAMS_SERVICE_URLS', { TEAMS_SERVICE_URLS: 'https://ok.example, ftp://no.example' }, 'holds an entry that'],
  ])('%s that cannot be one is refused, naming it', (where, env, message) => {
    const found = problems({ ...ON, ...env }).find((problem) => problem.where === where);
    expect(found?.message).toContain(message);
  });

  it('reads TEAMS_SERVICE_URLS as a list, loopback allowed over http (tests), without trailing slashes', () => {
    expect(load({ ...ON, TEAMS_SERVICE_URLS: 'http://127.0.0.1:4000/, https://smba.example.us/teams/' }).teams.serviceUrls).toEqual([
      'http://127.0.0.1:4000',
      'https://smba.example.us/teams',
    ]);
  });
});

describe('teams: in agent-bridge.yml', () => {
  it('routes channels by id, takes allowed users bare or as person ids (lower case), and the context bounds', () => {
    const yaml = `teams:\n  followups: all\n  allowed_users: [${ADA.toUpperCase()}, "teams:${ADA}"]\n  channels:\n    "${CHANNEL}": { config: { environment_id: env_teams } }\n    "*": {}\n  context: { messages: 5, characters: 1000 }\n`;
    const teams = load(ON, yaml).teams;
    expect(teams.followups).toBe('all');
    expect(teams.allowedUsers).toEqual([ADA, ADA]);
    expect(Object.keys(teams.channels)).toEqual([CHANNEL, '*']);
    expect(teams.context).toEqual({ messages: 5, characters: 1000 });
  });

  it.each([
    ['a channel key that is a name', 'teams:\n  channels:\n    general: {}\n', 'teams.channels.general', 'is not a channel id'],
    ['an allowed user that is a name', 'teams:\n  allowed_users: [ada]\n', 'teams.allowed_users[0]', 'is not a Teams user’s Entra object ID'],
    ['an unknown key', 'teams:\n  channel: {}\n', 'teams.channel', 'unknown key'],
  ])('refuses %s, naming the key', (_name, yaml, where, message) => {
    const found = problems(ON, yaml).find((problem) => problem.where === `${F}: ${where}`);
    expect(found?.message).toContain(message);
  });

  it('takes teams_channel on a tracker route and a schedule’s notify, and refuses them while Teams is off', () => {
    const LINEAR = { LINEAR_API_KEY: 'lin_api_teams_config_0123', LINEAR_WEBHOOK_SECRET: 'teams-config-linear-secret' };
    const yaml = `linear:\n  labels:\n    agent: { teams_channel: "${CHANNEL}" }\nschedules:\n  - { name: nightly, cron: "0 3 * * *", prompt: p, notify: { teams_channel: "${CHANNEL}" } }\n`;
    const config = load({ ...ON, ...LINEAR }, yaml);
    expect(config.linear.companions).toEqual({ agent: [`teams:${CHANNEL}`] });
    expect(config.schedules[0]?.notify).toEqual({ teamsChannel: CHANNEL });
    expect(problems(LINEAR, yaml).map((problem) => problem.where)).toEqual([
      `${F}: schedules[0].notify.teams_channel`,
      `${F}: linear.labels.agent.teams_channel`,
    ]);
  });

  it('takes Teams people as approvers and admins', () => {
    const config = load(
      { ...ON },
      `teams:\n  channels:\n    "*": { approval: { approvers: ["teams:${ADA}"] } }\nconsole:\n  admins: ["Teams:${ADA.toUpperCase()}"]\n`,
    );
    expect(config.console.admins).toEqual([`teams:${ADA}`]);
    expect(config.teams.channels['*']?.approval?.approvers).toEqual([`teams:${ADA}`]);
  });
});
