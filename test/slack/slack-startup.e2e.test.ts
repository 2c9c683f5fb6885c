import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSlackApi, type FakeSlackApi } from '../fakes/slack-api.js';
import { runCli } from '../helpers/spawn-cli.js';

/** Fail loudly at start: a wrong Slack token stops `serve` with what to do, never with the token. */

let slack: FakeSlackApi;
beforeAll(async () => {
  slack = await startFakeSlackApi({ token: 'xoxb-the-right-token-000000' });
});
afterAll(async () => {
  await slack.close();
});

describe('serve with Slack configured', () => {
  it('exits 2 naming SLACK_BOT_TOKEN when Slack refuses it', async () => {
    const wrong = 'xoxb-the-wrong-token-111111';
    const result = await runCli(['serve'], {
      env: { PORT: '0', HOST: '127.0.0.1', SLACK_BOT_TOKEN: wrong, SLACK_SIGNING_SECRET: 'signing-secret-0123456789', SLACK_API_URL: slack.url },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Slack refused SLACK_BOT_TOKEN at start (invalid_auth)');
    expect(result.stdout + result.stderr).not.toContain(wrong);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  // Slack's people are judged against the workspace auth.test names: without it every request would be refused.
  it('exits 2 when Slack names no workspace for the token', async () => {
    const teamless = await startFakeSlackApi({ token: 'xoxb-the-right-token-000000', teamId: '' });
    try {
      const result = await runCli(['serve'], {
        env: {
          PORT: '0',
          HOST: '127.0.0.1',
          SLACK_BOT_TOKEN: 'xoxb-the-right-token-000000',
          SLACK_SIGNING_SECRET: 'signing-secret-0123456789',
          SLACK_API_URL: teamless.url,
        },
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('Slack auth.test returned no team id');
    } finally {
      await teamless.close();
    }
  });
});
