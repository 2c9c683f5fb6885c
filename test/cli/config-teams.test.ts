import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeTeams, type FakeTeams } from '../fakes/teams-api.js';
import { TEAMS_IDS } from '../fixtures/teams/index.js';
import { runCli, tempDir } from '../helpers/spawn-cli.js';

/** `config check` asks the (fake) Microsoft login service whether the bot's app id, secret and tenant get a token. */

const SECRET = 'teams-config-check-secret-0123456789';
let fake: FakeTeams;
beforeAll(async () => {
  fake = await startFakeTeams({ clientId: TEAMS_IDS.clientId, clientSecret: SECRET, tenantId: TEAMS_IDS.tenant });
});
afterAll(() => fake.close());

const check = (secret: string, args: string[] = []) =>
  runCli(['config', 'check', ...args], {
    cwd: tempDir(),
    env: {
      TEAMS_CLIENT_ID: TEAMS_IDS.clientId,
      TEAMS_CLIENT_SECRET: secret,
      TEAMS_TENANT_ID: TEAMS_IDS.tenant,
      TEAMS_LOGIN_URL: fake.loginUrl,
      TEAMS_OPENID_METADATA_URL: fake.openIdMetadataUrl,
      PUBLIC_URL: 'https://bridge.example',
    },
  });

describe('config check against Microsoft', () => {
  it('credentials that get a token and readable signing keys: valid, and the summary says what was checked', async () => {
    const result = await check(SECRET);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Microsoft Teams: the bot’s app id, secret and tenant get a token from the login service');
    expect(result.stdout).toContain('Microsoft Teams: the Bot Connector’s signing keys can be read');
  });

  it('a wrong secret: exit 2 naming the variables to check, never the secret', async () => {
    const result = await check('not-the-secret-0123456789');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('check TEAMS_CLIENT_ID, TEAMS_CLIENT_SECRET and TEAMS_TENANT_ID');
    expect(result.stdout + result.stderr).not.toContain('not-the-secret-0123456789');
  });

  it('--offline asks nothing', async () => {
    const before = fake.tokenRequests().length;
    expect((await check(SECRET, ['--offline'])).code).toBe(0);
    expect(fake.tokenRequests()).toHaveLength(before);
  });
});
