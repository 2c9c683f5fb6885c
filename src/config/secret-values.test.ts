import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/config/helpers.js';
import { SECRET_VARIABLES } from './env-schema.js';
import { loadConfig } from './load-config.js';
import { secretValues } from './secret-values.js';

const PEM = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();

/** Every secret variable set to a value of its own (the database URL: its password), with what each needs beside it. */
const SECRETS: Record<(typeof SECRET_VARIABLES)[number], string> = {
  AGENT_API_KEY: 'agk-secret-values-01',
  SLACK_BOT_TOKEN: 'xoxb-secret-values-02',
  SLACK_SIGNING_SECRET: 'sgn-secret-values-03',
  SLACK_APP_TOKEN: 'xapp-secret-values-04',
  LINEAR_API_KEY: 'lin_api_secret_values_05',
  LINEAR_ACCESS_TOKEN: 'lin_oauth_secret_values_06',
  LINEAR_WEBHOOK_SECRET: 'lwh-secret-values-07',
  DATABASE_URL: 'postgres://bridge:pg-secret-values-08@db.example:5432/bridge',
  CONSOLE_ADMIN_TOKEN: 'console-admin-secret-values-09-0123456789',
  AGENT_BRIDGE_SECRET: 'people-secret-values-10-0123456789abcdef',
  SLACK_CLIENT_SECRET: 'slack-client-secret-values-11',
  METRICS_TOKEN: 'metrics-secret-values-12',
  GITHUB_PRIVATE_KEY: PEM.trim().replace(/\n/g, '\\n'),
  GITHUB_WEBHOOK_SECRET: 'gh-webhook-secret-values-13',
  JIRA_API_TOKEN: 'jira-token-secret-values-14',
  JIRA_WEBHOOK_SECRET: 'jira-webhook-secret-values-15',
  TEAMS_CLIENT_SECRET: 'teams-client-secret-values-16',
  GITLAB_TOKEN: 'glpat-secret-values-17-0123456789',
  GITLAB_WEBHOOK_SECRET: 'gitlab-webhook-secret-values-18',
};

describe('secretValues: what the logger scrubs', () => {
  it('holds the value of every secret variable', () => {
    const config = loadConfig({
      env: {
        ...SECRETS,
        AGENT_API_BASE_URL: 'https://agents.example/api/v1',
        SLACK_CLIENT_ID: '123.456',
        PUBLIC_URL: 'https://bridge.example',
        GITHUB_APP_ID: '4242',
        JIRA_BASE_URL: 'https://acme.atlassian.net',
        JIRA_EMAIL: 'bot@acme.example',
        TEAMS_CLIENT_ID: '8d4f2c1a-6e3b-4a7d-b9c2-1e5f7a3d9b60',
        TEAMS_TENANT_ID: '5c1a7e0d-2b9f-4e8a-9d3c-7f6b1a2e4c90',
      },
      cwd: tempDir(),
    });
    const values = secretValues(config);
    const expected = { ...SECRETS, DATABASE_URL: 'pg-secret-values-08', GITHUB_PRIVATE_KEY: PEM };
    const missing = SECRET_VARIABLES.filter((name) => !values.some((value) => value !== undefined && value.trim() === expected[name].trim()));
    expect(missing).toEqual([]);
  });
});
