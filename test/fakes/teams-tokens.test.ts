import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEAMS_IDS, channelMention } from '../fixtures/teams/index.js';
import { startFakeTeams, type FakeTeams } from './teams-api.js';

/*
 * The tokens the fake connector puts on activities are the ones Microsoft's connector would: a bot that
 * checks them as "Authenticate requests from the Bot Connector service to your bot" says accepts the
 * fake's good token and refuses each of its evil ones.
 */

const clock = Date.parse('2026-03-02T10:00:00.000Z');
let fake: FakeTeams;
let bot: Server;
let botUrl: string;
const received: Array<{ authorization: string | undefined; body: string }> = [];

/** Microsoft's steps: Bearer; keys from the metadata's jwks_uri; its algorithms; issuer; audience; 5 min skew; serviceurl = activity.serviceUrl. */
async function verifyAsMicrosoftSays(authorization: string | undefined, activity: { serviceUrl?: unknown }, jwks = remoteKeys()) {
  const bearer = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
  if (!bearer) throw new Error('no bearer');
  const { algorithms, keys } = await jwks;
  const { payload } = await jwtVerify(bearer, keys, {
    issuer: 'https://api.botframework.com',
    audience: TEAMS_IDS.clientId,
    algorithms,
    clockTolerance: 300,
    currentDate: new Date(clock),
  });
  if (payload['serviceurl'] !== activity.serviceUrl) throw new Error('serviceurl claim differs from the activity');
  return payload;
}

async function remoteKeys(options: { cooldownDuration?: number } = {}) {
  const metadata = (await (await fetch(fake.openIdMetadataUrl)).json()) as { jwks_uri: string; id_token_signing_alg_values_supported: string[] };
  return { algorithms: metadata.id_token_signing_alg_values_supported, keys: createRemoteJWKSet(new URL(metadata.jwks_uri), options) };
}

beforeAll(async () => {
  fake = await startFakeTeams({ clientId: TEAMS_IDS.clientId, clientSecret: 'secret', tenantId: TEAMS_IDS.tenant, now: () => clock });
  bot = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ authorization: req.headers.authorization, body });
      Promise.resolve()
        .then(() => verifyAsMicrosoftSays(req.headers.authorization, JSON.parse(body) as { serviceUrl?: unknown }))
        .then(
          () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'),
          (error: unknown) => res.writeHead(401).end(String(error)),
        );
    });
  });
  await new Promise<void>((resolve) => bot.listen(0, '127.0.0.1', resolve));
  botUrl = `http://127.0.0.1:${(bot.address() as AddressInfo).port}/teams/messages`;
});
afterAll(async () => {
  await fake.close();
  await new Promise<void>((resolve) => bot.close(() => resolve()));
});

describe('the OpenID metadata and its keys', () => {
  it('names the connector’s issuer, RS256 and a jwks_uri whose keys have a kid, use sig and the msteams endorsement', async () => {
    const metadata = (await (await fetch(fake.openIdMetadataUrl)).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      issuer: 'https://api.botframework.com',
      jwks_uri: `${fake.url}/v1/.well-known/keys`,
      id_token_signing_alg_values_supported: ['RS256'],
    });
    const jwks = (await (await fetch(String(metadata['jwks_uri']))).json()) as { keys: Array<Record<string, unknown>> };
    expect(jwks.keys).toEqual([expect.objectContaining({ kty: 'RSA', kid: fake.currentKid(), use: 'sig', endorsements: ['msteams'] })]);
    expect(jwks.keys[0]).not.toHaveProperty('d');
  });
});

describe('signActivityToken and sendActivity', () => {
  it('sends the activity as JSON with a token that verifies against the metadata’s keys, its serviceurl claim the activity’s', async () => {
    const activity = channelMention({ serviceUrl: fake.serviceUrl });
    const answer = await fake.sendActivity(botUrl, activity);
    expect(answer).toEqual({ status: 200, text: '{"ok":true}', json: { ok: true } });
    const last = received.at(-1);
    expect(JSON.parse(last?.body ?? '')).toEqual(activity);
    const payload = await verifyAsMicrosoftSays(last?.authorization, activity);
    expect(payload).toMatchObject({ iss: 'https://api.botframework.com', aud: TEAMS_IDS.clientId, serviceurl: fake.serviceUrl });
    expect(decodeProtectedHeader(last?.authorization?.slice('Bearer '.length) ?? '')).toMatchObject({ alg: 'RS256', typ: 'JWT', kid: fake.currentKid() });
  });

  it.each([
    ['another audience', { audience: '00000000-0000-4000-8000-000000000000' }],
    ['another issuer', { issuer: 'https://sts.windows.net/botframework.com/' }],
    ['expired past the 5 min skew', { expiresIn: -301 }],
    ['signed by a key the metadata never published', { unpublishedKey: true }],
    ['a serviceurl claim of another service URL', { serviceUrl: 'https://smba.trafficmanager.net/emea/' }],
    ['no serviceurl claim', { serviceUrl: null }],
  ])('a token with %s is refused by a bot that checks as Microsoft says', async (_what, token) => {
    expect((await fake.sendActivity(botUrl, channelMention({ serviceUrl: fake.serviceUrl }), { token })).status).toBe(401);
  });

  it('a token expired within the 5 min skew still verifies (the skew is the verifier’s, the expiry is real)', async () => {
    const activity = channelMention({ serviceUrl: fake.serviceUrl });
    const token = await fake.signActivityToken({ serviceUrl: fake.serviceUrl, expiresIn: -60 });
    await expect(jwtVerify(token, (await remoteKeys()).keys, { currentDate: new Date(clock) })).rejects.toMatchObject({ code: 'ERR_JWT_EXPIRED' });
    expect((await fake.sendActivity(botUrl, activity, { authorization: `Bearer ${token}` })).status).toBe(200);
  });

  it('sends no Authorization when told, and a raw body as given', async () => {
    expect((await fake.sendActivity(botUrl, undefined, { authorization: null, rawBody: '{"type":"message","serviceUrl":"x"}' })).status).toBe(401);
    expect(received.at(-1)).toEqual({ authorization: undefined, body: '{"type":"message","serviceUrl":"x"}' });
  });
});

describe('key rotation', () => {
  it('serves the new kid and signs with it; the old key is gone unless kept, and a verifier that refreshes on an unknown kid follows', async () => {
    const cached = await remoteKeys({ cooldownDuration: 0 });
    const before = channelMention({ serviceUrl: fake.serviceUrl });
    const oldKid = fake.currentKid();
    await verifyAsMicrosoftSays(`Bearer ${await fake.signActivityToken({ serviceUrl: fake.serviceUrl })}`, before, Promise.resolve(cached));

    const kept = await fake.rotateKey({ keepPrevious: true });
    const keysNow = async () =>
      ((await (await fetch(`${fake.url}/v1/.well-known/keys`)).json()) as { keys: Array<{ kid: string }> }).keys.map((key) => key.kid);
    expect(await keysNow()).toEqual([oldKid, kept]);
    const newToken = await fake.signActivityToken({ serviceUrl: fake.serviceUrl });
    expect(decodeProtectedHeader(newToken).kid).toBe(kept);
    await expect(verifyAsMicrosoftSays(`Bearer ${newToken}`, before, Promise.resolve(cached))).resolves.toMatchObject({ aud: TEAMS_IDS.clientId });

    const fresh = await fake.rotateKey();
    expect(await keysNow()).toEqual([fresh]);
    const stale = await fake.signActivityToken({ serviceUrl: fake.serviceUrl, kid: oldKid });
    expect((await fake.sendActivity(botUrl, before, { authorization: `Bearer ${stale}` })).status).toBe(401);
    expect((await fake.sendActivity(botUrl, before)).status).toBe(200);
  });
});
