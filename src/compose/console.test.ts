import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/config/helpers.js';
import { loadConfig } from '../config/index.js';
import { SURFACE_MODULES } from '../surface-list.js';
import { integrations } from './console.js';

const PEM = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();

/** Every registered surface on (Slack in Socket Mode). */
const EVERY_SURFACE_ON = {
  SLACK_BOT_TOKEN: 'xoxb-health-rows',
  SLACK_APP_TOKEN: 'xapp-health-rows',
  LINEAR_API_KEY: 'lin_api_health_rows',
  LINEAR_WEBHOOK_SECRET: 'linear-health-rows',
  GITHUB_APP_ID: '4242',
  GITHUB_PRIVATE_KEY: PEM.trim().replace(/\n/g, '\\n'),
  GITHUB_WEBHOOK_SECRET: 'github-health-rows',
  JIRA_BASE_URL: 'https://acme.atlassian.net',
  JIRA_EMAIL: 'bot@acme.example',
  JIRA_API_TOKEN: 'jira-health-rows',
  JIRA_WEBHOOK_SECRET: 'jira-webhook-health-rows',
};

describe("the health page's integrations", () => {
  it('has a row for every registered surface that is on, saying how it listens', () => {
    const rows = integrations(loadConfig({ env: EVERY_SURFACE_ON, cwd: tempDir() }));
    expect(rows.map((row) => row.name)).toEqual([...SURFACE_MODULES.map((surface) => surface.title), 'Schedules']);
    expect(rows).toEqual(
      expect.arrayContaining([
        { name: 'Slack', on: true, why: 'Socket Mode (SLACK_APP_TOKEN)' },
        { name: 'Linear', on: true, why: 'webhook at /linear/webhook' },
        { name: 'GitHub', on: true, why: 'webhook at /github/webhook' },
        { name: 'Jira', on: true, why: 'webhook at /jira/webhook' },
      ]),
    );
  });

  it('has a row for every surface that is off, saying what turns it on', () => {
    const rows = integrations(loadConfig({ env: {}, cwd: tempDir() }));
    expect(rows.filter((row) => row.name !== 'Schedules')).toEqual(
      SURFACE_MODULES.map((surface) => ({ name: surface.title, on: false, why: expect.stringMatching(/^off: [A-Z_]+\b.* not set$/) as unknown })),
    );
    expect(rows.find((row) => row.name === 'GitHub')?.why).toContain('GITHUB_APP_ID');
  });
});
