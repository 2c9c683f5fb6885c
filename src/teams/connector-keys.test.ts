import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CapturingLogger } from '../../test/core/capturing-logger.js';
import { startFakeTeams, type FakeTeams } from '../../test/fakes/teams-api.js';
import { TEAMS_IDS } from '../../test/fixtures/teams/index.js';
import { connectorKeys, KEY_FETCH_COOLDOWN_MS } from './connector-keys.js';
import { connectorTokenCheck } from './verify-token.js';

/*
 * The connector's signing keys as the service's clock keeps them: read once, kept a day, fetched again
 * for a key id they lack at most once per cooldown, and never once per request whatever a caller sends.
 */

const SERVICE_URL = 'https://smba.trafficmanager.net/amer/';
const DAY_MS = 24 * 3_600_000;
let clock = Date.parse('2026-03-02T10:00:00.000Z');
let fake: FakeTeams;

beforeAll(async () => {
  fake = await startFakeTeams({ clientId: TEAMS_IDS.clientId, clientSecret: 'unused', tenantId: TEAMS_IDS.tenant, now: () => clock });
});
afterAll(() => fake.close());

const fetches = (kind: 'metadata' | 'keys') => fake.calls.filter((call) => call.kind === kind).length;
const counts = () => ({ metadata: fetches('metadata'), keys: fetches('keys') });
/** What the fake served since `before`. */
const since = (before: { metadata: number; keys: number }) => ({ metadata: fetches('metadata') - before.metadata, keys: fetches('keys') - before.keys });
const token = (kid?: string) => fake.signActivityToken({ serviceUrl: SERVICE_URL, ...(kid !== undefined && { kid }) });

function checker(metadataUrl = fake.openIdMetadataUrl) {
  const logger = new CapturingLogger();
  const keys = connectorKeys({ metadataUrl, logger });
  const check = connectorTokenCheck({ clientId: TEAMS_IDS.clientId, keys });
  return { logger, keys, check, verdict: async (jwt: string) => (await check(jwt, clock)).ok };
}

describe('connectorKeys: reachable metadata', () => {
  it('reads the metadata once for many callers at once, and then verifies with the keys it names', async () => {
    const before = counts();
    const { keys, verdict } = checker();
    await Promise.all(Array.from({ length: 10 }, () => keys.keys(clock)));
    expect(since(before).metadata).toBe(1);
    for (let n = 0; n < 5; n++) expect(await verdict(await token())).toBe(true);
    expect(since(before)).toEqual({ metadata: 1, keys: 1 });
  });

  it('keeps the metadata and keys for a day by the service’s clock, then reads both again', async () => {
    const { verdict } = checker();
    expect(await verdict(await token())).toBe(true);
    const before = counts();
    clock += DAY_MS - 60_000;
    expect(await verdict(await token())).toBe(true);
    expect(since(before)).toEqual({ metadata: 0, keys: 0 });
    clock += 60_000;
    expect(await verdict(await token())).toBe(true);
    expect(since(before)).toEqual({ metadata: 1, keys: 1 });
  });

  it('a key id it lacks after the keys rotated: refused within the cooldown without a fetch, then fetched once and accepted', async () => {
    const { verdict } = checker();
    expect(await verdict(await token())).toBe(true);
    await fake.rotateKey();
    const rotated = await token();
    const before = counts();
    clock += 60_000;
    expect(await verdict(rotated)).toBe(false);
    expect(since(before)).toEqual({ metadata: 0, keys: 0 });

    clock += KEY_FETCH_COOLDOWN_MS;
    expect(await verdict(rotated)).toBe(true);
    expect(since(before)).toEqual({ metadata: 0, keys: 1 });
    for (let n = 0; n < 3; n++) expect(await verdict(await token())).toBe(true);
    expect(since(before)).toEqual({ metadata: 0, keys: 1 });
  });

  it('several callers with a new key id at once share one fetch', async () => {
    const { verdict } = checker();
    expect(await verdict(await token())).toBe(true);
    await fake.rotateKey();
    clock += KEY_FETCH_COOLDOWN_MS;
    const before = counts();
    const rotated = await token();
    expect(await Promise.all(Array.from({ length: 5 }, () => verdict(rotated)))).toEqual([true, true, true, true, true]);
    expect(since(before).keys).toBe(1);
  });

  it('made-up key ids cost at most one fetch per cooldown, never one per request', async () => {
    const { verdict } = checker();
    expect(await verdict(await token())).toBe(true);
    clock += KEY_FETCH_COOLDOWN_MS;
    const before = counts();
    for (let n = 0; n < 20; n++) {
      clock += 1_000;
      expect(await verdict(await token(`made-up-${n}`))).toBe(false);
    }
    expect(since(before)).toEqual({ metadata: 0, keys: 1 });
    clock += KEY_FETCH_COOLDOWN_MS;
    for (let n = 0; n < 20; n++) expect(await verdict(await token(`made-up-again-${n}`))).toBe(false);
    expect(since(before)).toEqual({ metadata: 0, keys: 2 });
    expect(await verdict(await token())).toBe(true);
  });

  it('a token of a key still published after a rotation stays valid', async () => {
    const { verdict } = checker();
    const old = await token();
    expect(await verdict(old)).toBe(true);
    await fake.rotateKey({ keepPrevious: true });
    clock += KEY_FETCH_COOLDOWN_MS;
    expect(await verdict(await token())).toBe(true);
    expect(await verdict(old)).toBe(true);
  });
});

describe('connectorKeys: metadata that cannot be read', () => {
  let server: Server;
  let metadataUrl: string;
  let down = true;
  let served = 0;

  beforeAll(async () => {
    // The connector's metadata behind a switch: down (503) until a test turns it on.
    server = createServer((req, res) => {
      served += 1;
      if (down) return void res.writeHead(503).end();
      fetch(fake.openIdMetadataUrl)
        .then((answer) => answer.text())
        .then(
          (text) => res.writeHead(200, { 'content-type': 'application/json' }).end(text),
          () => res.writeHead(502).end(),
        );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    metadataUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/.well-known/openidconfiguration`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('refuses every token, warns once per cooldown, fetches once per cooldown however many requests come, then recovers', async () => {
    const { logger, verdict } = checker(metadataUrl);
    const before = served;
    const good = await token();
    for (let n = 0; n < 10; n++) {
      expect(await verdict(good)).toBe(false);
      clock += 1_000;
    }
    expect(served - before).toBe(1);
    expect(logger.at('warn')).toEqual([
      {
        level: 'warn',
        fields: { err: 'the OpenID metadata answered 503', metadataUrl },
        msg: expect.stringContaining('could not read the Bot Connector’s signing keys'),
      },
    ]);

    clock += KEY_FETCH_COOLDOWN_MS;
    expect(await verdict(good)).toBe(false);
    expect(served - before).toBe(2);
    expect(logger.at('warn')).toHaveLength(2);

    down = false;
    expect(await verdict(await token())).toBe(false);
    clock += KEY_FETCH_COOLDOWN_MS;
    expect(await verdict(await token())).toBe(true);
    expect(served - before).toBe(3);
    expect(logger.at('warn')).toHaveLength(2);
    expect(logger.at('error')).toEqual([]);
  });

  it('the fake’s metadata path that is not there: a 404, refused, one fetch per cooldown', async () => {
    const missing = `${fake.url}/v1/.well-known/missing`;
    const { logger, verdict } = checker(missing);
    const asked = () => fake.calls.filter((call) => call.path === '/v1/.well-known/missing').length;
    for (let n = 0; n < 5; n++) expect(await verdict(await token())).toBe(false);
    expect(asked()).toBe(1);
    expect(logger.at('warn').map((line) => line.fields['err'])).toEqual(['the OpenID metadata answered 404']);
  });

  it.each([
    ['metadata that is not JSON', 'not json'],
    ['metadata without a jwks_uri', JSON.stringify({ issuer: 'https://api.botframework.com' })],
  ])('%s: refused, warned once', async (_what, body) => {
    const odd = createServer((req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
    await new Promise<void>((resolve) => odd.listen(0, '127.0.0.1', resolve));
    try {
      const { logger, verdict } = checker(`http://127.0.0.1:${(odd.address() as AddressInfo).port}/metadata`);
      expect(await verdict(await token())).toBe(false);
      expect(await verdict(await token())).toBe(false);
      expect(logger.at('warn')).toHaveLength(1);
    } finally {
      await new Promise<void>((resolve) => odd.close(() => resolve()));
    }
  });

  it('keys that cannot be read behind readable metadata: refused, warned once, fetched once per cooldown, not once per request', async () => {
    let keyRequests = 0;
    const broken = createServer((req, res) => {
      if (req.url === '/keys') {
        keyRequests += 1;
        return void res.writeHead(503).end();
      }
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jwks_uri: `http://127.0.0.1:${(broken.address() as AddressInfo).port}/keys` }));
    });
    await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
    try {
      const { logger, verdict } = checker(`http://127.0.0.1:${(broken.address() as AddressInfo).port}/metadata`);
      for (let n = 0; n < 5; n++) expect(await verdict(await token())).toBe(false);
      expect(keyRequests).toBe(1);
      expect(logger.at('warn')).toHaveLength(1);
      clock += KEY_FETCH_COOLDOWN_MS;
      expect(await verdict(await token())).toBe(false);
      expect(keyRequests).toBe(2);
    } finally {
      await new Promise<void>((resolve) => broken.close(() => resolve()));
    }
  });

  it('nothing listening: refused, warned once, the address named', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/metadata`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const { logger, verdict } = checker(url);
    expect(await verdict(await token())).toBe(false);
    expect(await verdict(await token())).toBe(false);
    expect(logger.at('warn')).toEqual([expect.objectContaining({ fields: { err: expect.any(String), metadataUrl: url } })]);
  });
});
