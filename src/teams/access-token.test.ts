import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeTeams, type FakeTeams } from '../../test/fakes/teams-api.js';
import { TEAMS_IDS } from '../../test/fixtures/teams/index.js';
import { NotifierError } from '../core/ports/notifier.js';
import { AccessToken, type TokenSettings } from './access-token.js';

/* The bot's own token for the Bot Connector, from the fake login service, by the service's clock. */

const SECRET = 'teams-unit-client-secret~0123456789abcdef';
const EARLY_MS = 5 * 60_000;
let clock = Date.parse('2026-03-02T10:00:00.000Z');
let fake: FakeTeams;

beforeAll(async () => {
  fake = await startFakeTeams({ clientId: TEAMS_IDS.clientId, clientSecret: SECRET, tenantId: TEAMS_IDS.tenant, now: () => clock });
});
afterAll(() => fake.close());

const settings = (overrides: Partial<TokenSettings> = {}): TokenSettings => ({
  clientId: TEAMS_IDS.clientId,
  clientSecret: SECRET,
  tenantId: TEAMS_IDS.tenant,
  loginUrl: fake.loginUrl,
  ...overrides,
});
const requests = () => fake.tokenRequests().length;

/** What `get` threw, checked to be a NotifierError that says nothing of the secret. */
async function refusal(token: AccessToken): Promise<NotifierError> {
  const error = await token.get().then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(NotifierError);
  expect(inspect(error, { depth: 10 })).not.toContain(SECRET);
  return error as NotifierError;
}

describe('AccessToken', () => {
  it('asks the login service for the connector’s scope by client credentials, and the connector takes the token', async () => {
    const before = requests();
    const token = new AccessToken(settings(), () => clock);
    const jwt = await token.get();
    expect(fake.tokenRequests().slice(before)).toEqual([
      expect.objectContaining({
        method: 'POST',
        path: `/${TEAMS_IDS.tenant}/oauth2/v2.0/token`,
        status: 200,
        body: { grant_type: 'client_credentials', client_id: TEAMS_IDS.clientId, client_secret: '***', scope: 'https://api.botframework.com/.default' },
      }),
    ]);
    const posted = await fetch(`${fake.serviceUrl}v3/conversations/${encodeURIComponent(TEAMS_IDS.groupChat)}/activities`, {
      method: 'POST',
      headers: { authorization: `Bearer ${jwt}`, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'message', text: 'hello' }),
    });
    expect(posted.status).toBe(201);
  });

  it('keeps the token until five minutes before it expires, then asks for a new one', async () => {
    const token = new AccessToken(settings(), () => clock);
    const before = requests();
    const first = await token.get();
    const start = clock;
    clock = start + 3_599_000 - EARLY_MS - 1;
    expect(await token.get()).toBe(first);
    expect(requests() - before).toBe(1);
    clock = start + 3_599_000 - EARLY_MS;
    const second = await token.get();
    expect(requests() - before).toBe(2);
    expect(second).not.toBe(first);
    clock += 1_000;
  });

  it('callers at the same time share one request', async () => {
    const token = new AccessToken(settings(), () => clock);
    const before = requests();
    const tokens = await Promise.all(Array.from({ length: 8 }, () => token.get()));
    expect(new Set(tokens).size).toBe(1);
    expect(requests() - before).toBe(1);
  });

  it('forget drops the token: the next caller asks for a new one', async () => {
    const token = new AccessToken(settings(), () => clock);
    await token.get();
    const before = requests();
    token.forget();
    await token.get();
    expect(requests() - before).toBe(1);
  });

  it('a token that lives less than five minutes is still kept 30 seconds', async () => {
    const shortLived = await startFakeTeams({
      clientId: TEAMS_IDS.clientId,
      clientSecret: SECRET,
      tenantId: TEAMS_IDS.tenant,
      now: () => clock,
      accessTokenLifetime: 60,
    });
    try {
      const token = new AccessToken(settings({ loginUrl: shortLived.loginUrl }), () => clock);
      const start = clock;
      await token.get();
      clock = start + 29_999;
      await token.get();
      expect(shortLived.tokenRequests()).toHaveLength(1);
      clock = start + 30_000;
      await token.get();
      expect(shortLived.tokenRequests()).toHaveLength(2);
    } finally {
      await shortLived.close();
    }
  });

  it.each<[string, Partial<TokenSettings>, RegExp]>([
    ['a wrong secret', { clientSecret: 'not-the-secret-value-0123456789' }, /\(invalid_client\)/],
    ['another client id', { clientId: '00000000-0000-4000-8000-000000000000' }, /\(unauthorized_client\)/],
    ['another tenant', { tenantId: '00000000-0000-4000-8000-0000000e7111' }, /\(invalid_request\)/],
  ])('%s: refused for good, naming what to check, never the secret', async (_what, overrides, said) => {
    const error = await refusal(new AccessToken(settings(overrides), () => clock));
    expect(error).toMatchObject({ code: 'teams_login_refused', retryable: false });
    expect(error.message).toMatch(said);
    expect(error.message).toContain('check TEAMS_CLIENT_ID, TEAMS_CLIENT_SECRET and TEAMS_TENANT_ID');
  });

  it('a login service that cannot be reached, or fails, is worth trying again; the next call asks again', async () => {
    let status = 503;
    let asked = 0;
    const server = createServer((req, res) => {
      asked += 1;
      res.writeHead(status, { 'content-type': 'application/json' }).end(status === 200 ? '{"token_type":"Bearer"}' : '{"error":"temporarily_unavailable"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const loginUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const token = new AccessToken(settings({ loginUrl }), () => clock);
      expect(await refusal(token)).toMatchObject({ code: 'teams_login_refused', retryable: true, message: expect.stringContaining('temporarily_unavailable') });
      status = 200;
      expect(await refusal(token)).toMatchObject({ code: 'teams_login_refused', retryable: true, message: expect.stringContaining('status 200') });
      expect(asked).toBe(2);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    expect(await refusal(new AccessToken(settings({ loginUrl }), () => clock))).toMatchObject({ code: 'teams_login_unreachable', retryable: true });
  });
});
