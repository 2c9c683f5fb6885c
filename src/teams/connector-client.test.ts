import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeTeams, type FakeTeams, type TeamsFailure } from '../../test/fakes/teams-api.js';
import { TEAMS_IDS, TEAMS_PEOPLE } from '../../test/fixtures/teams/index.js';
import { NotifierError } from '../core/ports/notifier.js';
import { AccessToken } from './access-token.js';
import { ConnectorClient } from './connector-client.js';

/* The Bot Connector calls the bot makes, against the fake Teams: answers, faults, and what an error may say. */

const SECRET = 'teams-connector-unit-secret~0123456789abcdef';
const THREAD = `${TEAMS_IDS.channel};messageid=1750000000000`;
const clock = Date.parse('2026-03-02T10:00:00.000Z');
/** The connector's clock, which a test moves ahead of the bot's. */
let fakeClock = clock;
let fake: FakeTeams;
let token: AccessToken;
let client: ConnectorClient;
/** Every error the client threw in this file, to look for secrets in. */
const thrown: unknown[] = [];

beforeAll(async () => {
  fake = await startFakeTeams({ clientId: TEAMS_IDS.clientId, clientSecret: SECRET, tenantId: TEAMS_IDS.tenant, now: () => fakeClock });
  fake.addMember({ ...TEAMS_PEOPLE.ada, email: 'ada@contoso.example', userPrincipalName: 'ada@contoso.example' });
  token = new AccessToken({ clientId: TEAMS_IDS.clientId, clientSecret: SECRET, tenantId: TEAMS_IDS.tenant, loginUrl: fake.loginUrl }, () => clock);
  client = new ConnectorClient(token);
});
afterAll(() => fake.close());

const message = (text: string) => ({ type: 'message', text });

/** The NotifierError a call threw. */
async function failure(call: Promise<unknown>): Promise<NotifierError> {
  const error = await call.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  thrown.push(error);
  expect(error).toBeInstanceOf(NotifierError);
  return error as NotifierError;
}

describe('ConnectorClient against the fake connector', () => {
  it('posts an activity at the conversation’s service URL and answers its id', async () => {
    const id = await client.post(fake.serviceUrl, THREAD, message('Received: fix the build'));
    expect(fake.posted.at(-1)).toMatchObject({ id, conversationId: THREAD, serviceUrl: fake.serviceUrl, activity: message('Received: fix the build') });
  });

  it('takes a service URL with or without its trailing slash, in any region', async () => {
    const emea = fake.serviceUrlOf('emea');
    const id = await client.post(emea.replace(/\/$/, ''), TEAMS_IDS.groupChat, message('hello'));
    expect(fake.posted.at(-1)).toMatchObject({ id, serviceUrl: emea });
  });

  it('replaces a posted activity in place, under its id', async () => {
    const id = await client.post(fake.serviceUrl, THREAD, message('v1'));
    await client.update(fake.serviceUrl, THREAD, id, message('v2'));
    expect(fake.posted.find((entry) => entry.id === id)?.versions).toEqual([message('v1'), { ...message('v2'), id }]);
  });

  it('reads a member by Teams id or Entra object id; someone not in the conversation is undefined', async () => {
    expect(await client.member(fake.serviceUrl, THREAD, TEAMS_PEOPLE.ada.id)).toMatchObject({
      id: TEAMS_PEOPLE.ada.id,
      name: 'Ada Lovelace',
      aadObjectId: TEAMS_PEOPLE.ada.aadObjectId,
      email: 'ada@contoso.example',
    });
    expect(await client.member(fake.serviceUrl, THREAD, TEAMS_PEOPLE.ada.aadObjectId)).toMatchObject({ name: 'Ada Lovelace' });
    expect(await client.member(fake.serviceUrl, THREAD, TEAMS_PEOPLE.mallory.id)).toBeUndefined();
  });

  it('opens the 1:1 chat of the bot with a person, the same each time', async () => {
    const open = () => client.openChat(fake.serviceUrl, { botId: fake.botId, userId: TEAMS_PEOPLE.ada.id, tenantId: TEAMS_IDS.tenant });
    const chat = await open();
    expect(chat).toMatch(/^a:/);
    expect(await open()).toBe(chat);
    expect(fake.chats.filter((known) => known === chat)).toHaveLength(1);
  });

  it('a 429 with Retry-After is retryable after that long; nothing was posted', async () => {
    const before = fake.posted.length;
    fake.failNext({ status: 429, retryAfter: 3 });
    const error = await failure(client.post(fake.serviceUrl, THREAD, message('throttled')));
    expect(error).toMatchObject({ code: 'teams_429', retryable: true, retryAfterMs: 3_000, message: 'Teams: the connector answered 429 (TooManyRequests)' });
    expect(fake.posted).toHaveLength(before);
  });

  it.each<[TeamsFailure['status'], string]>([
    [412, 'teams_412'],
    [500, 'teams_500'],
    [502, 'teams_502'],
    [503, 'teams_503'],
    [504, 'teams_504'],
  ])('a %i is retryable, without a Retry-After of its own', async (status, code) => {
    fake.failNext({ status, method: 'PUT' });
    const id = await client.post(fake.serviceUrl, THREAD, message('v1'));
    const error = await failure(client.update(fake.serviceUrl, THREAD, id, message('v2')));
    expect(error).toMatchObject({ code, retryable: true, retryAfterMs: undefined });
  });

  it('an edit of an activity the conversation does not have is a 404, not worth retrying', async () => {
    expect(await failure(client.update(fake.serviceUrl, THREAD, '1234', message('x')))).toMatchObject({
      code: 'teams_404',
      retryable: false,
      message: 'Teams: the connector answered 404 (ActivityNotFoundInConversation)',
    });
  });

  it('a 401 drops the token: retryable, and the next call gets a new token and goes through', async () => {
    await client.post(fake.serviceUrl, THREAD, message('with the current token'));
    const before = fake.tokenRequests().length;
    // The connector’s clock is two hours on: it sees the bot’s token as expired, though the bot does not yet.
    fakeClock += 2 * 3_600_000;
    const error = await failure(client.post(fake.serviceUrl, THREAD, message('refused')));
    expect(error).toMatchObject({ code: 'teams_401', retryable: true });
    expect(fake.tokenRequests().length).toBe(before);
    const id = await client.post(fake.serviceUrl, THREAD, message('with a new token'));
    expect(fake.tokenRequests().length).toBe(before + 1);
    expect(fake.posted.at(-1)).toMatchObject({ id, activity: message('with a new token') });
  });

  it('a connector that cannot be reached is retryable, the error naming the call', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const serviceUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/amer/`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    expect(await failure(client.post(serviceUrl, THREAD, message('x')))).toMatchObject({
      code: 'teams_unreachable',
      retryable: true,
      message: 'Teams: POST conversations could not reach the connector',
    });
  });

  it('a login that fails is the call’s failure, and says nothing of the secret', async () => {
    const wrong = new ConnectorClient(
      new AccessToken({ clientId: TEAMS_IDS.clientId, clientSecret: `${SECRET}-wrong`, tenantId: TEAMS_IDS.tenant, loginUrl: fake.loginUrl }, () => clock),
    );
    expect(await failure(wrong.post(fake.serviceUrl, THREAD, message('x')))).toMatchObject({ code: 'teams_login_refused', retryable: false });
  });
});

describe('ConnectorClient against answers the fake does not give', () => {
  let server: Server;
  let serviceUrl: string;
  let answer: { status: number; body: string; headers?: Record<string, string> } = { status: 200, body: '{}' };

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(answer.body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    serviceUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/amer/`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it.each([
    ['no body', ''],
    ['no id', '{}'],
    ['an empty id', '{"id":""}'],
    ['an id that is no text', '{"id":7}'],
    ['no JSON', 'created'],
  ])('a post answered with %s is an error not worth retrying', async (_what, body) => {
    answer = { status: 201, body };
    expect(await failure(client.post(serviceUrl, THREAD, message('x')))).toMatchObject({ code: 'teams_no_id', retryable: false });
  });

  it('a member named by objectId alone gets its aadObjectId from it', async () => {
    answer = { status: 200, body: JSON.stringify({ id: TEAMS_PEOPLE.ada.id, name: 'Ada Lovelace', objectId: TEAMS_PEOPLE.ada.aadObjectId }) };
    expect(await client.member(serviceUrl, THREAD, TEAMS_PEOPLE.ada.id)).toMatchObject({ aadObjectId: TEAMS_PEOPLE.ada.aadObjectId });
  });

  it('an error code is cut to 60 characters; a Retry-After that is not a number of seconds is ignored', async () => {
    answer = { status: 429, body: JSON.stringify({ error: { code: 'X'.repeat(500) } }), headers: { 'retry-after': 'Wed, 21 Oct 2026 07:28:00 GMT' } };
    const error = await failure(client.post(serviceUrl, THREAD, message('x')));
    expect(error.message).toBe(`Teams: the connector answered 429 (${'X'.repeat(60)})`);
    expect(error.retryAfterMs).toBeUndefined();
  });
});

describe('what the client’s errors say', () => {
  it('never the client secret, nor an access token', async () => {
    const current = await token.get();
    expect(thrown.length).toBeGreaterThan(10);
    for (const error of thrown) {
      const text = inspect(error, { depth: 10 });
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(current);
      expect(text).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\./);
    }
  });
});
