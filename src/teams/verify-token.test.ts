import { SignJWT } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CapturingLogger } from '../../test/core/capturing-logger.js';
import { startFakeTeams, type ActivityTokenOptions, type FakeTeams } from '../../test/fakes/teams-api.js';
import { TEAMS_IDS } from '../../test/fixtures/teams/index.js';
import { connectorKeys } from './connector-keys.js';
import { CONNECTOR_ISSUER, connectorTokenCheck } from './verify-token.js';

/* The Bot Connector's token on an activity, checked against the fake Teams' metadata and keys. */

const SERVICE_URL = 'https://smba.trafficmanager.net/amer/';
let clock = Date.parse('2026-03-02T10:00:00.000Z');
let fake: FakeTeams;
const logger = new CapturingLogger();
let check: ReturnType<typeof connectorTokenCheck>;

beforeAll(async () => {
  fake = await startFakeTeams({ clientId: TEAMS_IDS.clientId, clientSecret: 'unused', tenantId: TEAMS_IDS.tenant, now: () => clock });
  check = connectorTokenCheck({ clientId: TEAMS_IDS.clientId, keys: connectorKeys({ metadataUrl: fake.openIdMetadataUrl, logger }) });
});
afterAll(() => fake.close());
beforeEach(() => {
  clock += 1_000;
});

const token = (options: Partial<ActivityTokenOptions> = {}) => fake.signActivityToken({ serviceUrl: SERVICE_URL, ...options });
const keyFetches = () => fake.calls.filter((call) => call.kind === 'metadata' || call.kind === 'keys').length;

/** A token the connector's key never signed: `alg` HS256 under a secret anyone may pick, or `none`. */
async function forged(alg: 'HS256' | 'none'): Promise<string> {
  const claims = { serviceurl: SERVICE_URL, iss: CONNECTOR_ISSUER, aud: TEAMS_IDS.clientId, exp: Math.floor(clock / 1000) + 600 };
  if (alg === 'HS256') {
    return new SignJWT(claims).setProtectedHeader({ alg, typ: 'JWT', kid: fake.currentKid() }).sign(new TextEncoder().encode('a secret anyone may pick'));
  }
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg, typ: 'JWT', kid: fake.currentKid() })}.${part(claims)}.`;
}

describe('connectorTokenCheck', () => {
  it('admits the connector’s token and hands on its serviceurl claim', async () => {
    expect(await check(await token(), clock)).toEqual({ ok: true, claims: { serviceurl: SERVICE_URL } });
  });

  it('admits a token without a serviceurl claim, with none to hand on (the body is then refused)', async () => {
    expect(await check(await token({ serviceUrl: null }), clock)).toEqual({ ok: true, claims: { serviceurl: undefined } });
  });

  it.each<[string, Partial<ActivityTokenOptions>]>([
    ['another audience', { audience: '00000000-0000-4000-8000-000000000000' }],
    ['the bot’s id in another form', { audience: `28:${TEAMS_IDS.clientId}` }],
    ['another issuer', { issuer: 'https://sts.windows.net/d6d49420-f39b-4df7-a1dc-d59a935871db/' }],
    ['a key the metadata never published', { unpublishedKey: true }],
  ])('refuses a token with %s as a mismatch', async (_what, options) => {
    expect(await check(await token(options), clock)).toEqual({ ok: false, problem: 'mismatch' });
  });

  it('accepts a token expired within the 5 minutes’ skew, and refuses one expired beyond it as stale', async () => {
    expect(await check(await token({ expiresIn: -290 }), clock)).toMatchObject({ ok: true });
    expect(await check(await token({ expiresIn: -310 }), clock)).toEqual({ ok: false, problem: 'stale' });
  });

  it('accepts a token made up to 5 minutes ahead of our clock, and refuses one made further ahead', async () => {
    const made = await token();
    expect(await check(made, clock - 290_000)).toMatchObject({ ok: true });
    expect(await check(made, clock - 310_000)).toEqual({ ok: false, problem: 'mismatch' });
  });

  it.each(['HS256', 'none'] as const)('refuses a token of alg %s naming the published kid, without fetching a key for it', async (alg) => {
    await check(await token(), clock);
    const before = keyFetches();
    expect(await check(await forged(alg), clock)).toEqual({ ok: false, problem: 'mismatch' });
    expect(keyFetches()).toBe(before);
  });

  it.each(['', 'not-a-jwt', 'a.b.c', `${'x'.repeat(5_000)}.y.z`])('refuses %j as a mismatch', async (text) => {
    expect(await check(text, clock)).toEqual({ ok: false, problem: 'mismatch' });
  });

  it('a token signed for another bot by the same connector is refused: the audience is ours alone', async () => {
    const other = connectorTokenCheck({
      clientId: '00000000-0000-4000-8000-000000000000',
      keys: connectorKeys({ metadataUrl: fake.openIdMetadataUrl, logger }),
    });
    expect(await other(await token(), clock)).toEqual({ ok: false, problem: 'mismatch' });
  });

  it('logs nothing above debug for any refusal', () => {
    expect(logger.lines.filter((line) => line.level !== 'debug')).toEqual([]);
  });
});
