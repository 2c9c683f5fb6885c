import { SignJWT, generateKeyPair } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TEAMS_IDS, TEAMS_PEOPLE } from '../fixtures/teams/index.js';
import { startFakeTeams, type FakeTeams } from './teams-api.js';

/* The fake Teams' login service and Bot Connector API answer as Microsoft's pages say, so tests against it mean something. */

const SECRET = 'fake-client-secret-value~0123456789';
let clock = Date.parse('2026-03-02T10:00:00.000Z');
let fake: FakeTeams;

beforeAll(async () => {
  fake = await startFakeTeams({ clientId: TEAMS_IDS.clientId, clientSecret: SECRET, tenantId: TEAMS_IDS.tenant, now: () => clock });
  fake.addMember({ ...TEAMS_PEOPLE.ada, email: 'ada@contoso.example', userPrincipalName: 'ada@contoso.example' });
  fake.addMember({ ...TEAMS_PEOPLE.grace, email: 'grace@contoso.example' }, [TEAMS_IDS.groupChat]);
});
afterAll(() => fake.close());
beforeEach(() => {
  clock += 60_000;
});

const tokenForm = (fields: Record<string, string> = {}) =>
  new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: TEAMS_IDS.clientId,
    client_secret: SECRET,
    scope: 'https://api.botframework.com/.default',
    ...fields,
  });

const askToken = async (form: URLSearchParams, tenant: string = TEAMS_IDS.tenant) => {
  const response = await fetch(`${fake.loginUrl}/${tenant}/oauth2/v2.0/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

const accessToken = async () => String((await askToken(tokenForm())).body['access_token']);

const connector = async (method: string, operation: string, body?: unknown, authorization?: string | null, serviceUrl = fake.serviceUrl) => {
  const bearer = authorization === undefined ? `Bearer ${await accessToken()}` : authorization;
  const response = await fetch(`${serviceUrl}${operation}`, {
    method,
    headers: { ...(bearer !== null && { authorization: bearer }), ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
};

const conversation = (id: string) => `v3/conversations/${encodeURIComponent(id)}`;
const thread = `${TEAMS_IDS.channel};messageid=1750000000000`;
const card = (state: string) => ({
  type: 'message',
  attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', content: { type: 'AdaptiveCard', state } }],
});

describe('the login service (client credentials for api.botframework.com)', () => {
  it('issues a Bearer token with its lifetime to the bot’s id and secret, and counts the requests with the secret masked', async () => {
    const before = fake.tokenRequests().length;
    const { status, body } = await askToken(tokenForm());
    expect(status).toBe(200);
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 3599, ext_expires_in: 3599, access_token: expect.stringMatching(/^ey/) });
    expect(fake.tokenRequests().slice(before)).toEqual([expect.objectContaining({ status: 200, body: expect.objectContaining({ client_secret: '***' }) })]);
  });

  it.each([
    ['a wrong secret', tokenForm({ client_secret: 'guessed' }), TEAMS_IDS.tenant, 401, 'invalid_client', 7000215],
    ['another client id', tokenForm({ client_id: '00000000-0000-4000-8000-000000000000' }), TEAMS_IDS.tenant, 400, 'unauthorized_client', 700016],
    ['another scope', tokenForm({ scope: 'https://graph.microsoft.com/.default' }), TEAMS_IDS.tenant, 400, 'invalid_scope', 1002012],
    ['another grant type', tokenForm({ grant_type: 'password' }), TEAMS_IDS.tenant, 400, 'unsupported_grant_type', 70003],
    ['another tenant', tokenForm(), 'botframework.com', 400, 'invalid_request', 90002],
  ])('refuses %s as Entra does, with no token', async (_what, form, tenant, status, error, code) => {
    const answer = await askToken(form, tenant);
    expect(answer).toEqual({
      status,
      body: expect.objectContaining({ error, error_codes: [code], error_description: expect.stringMatching(`^AADSTS${code}:`) }),
    });
    expect(answer.body).not.toHaveProperty('access_token');
  });
});

describe('the Bot Connector API under its service URL', () => {
  it('a token from the login service posts an activity: 201 with its id, recorded with its body and service URL', async () => {
    const activity = { type: 'message', text: 'Received: fix the flaky test' };
    const { status, body } = await connector('POST', `${conversation(thread)}/activities`, activity);
    expect(status).toBe(201);
    expect(body).toEqual({ id: expect.stringMatching(/^\d+$/) });
    expect(fake.posted.at(-1)).toMatchObject({ id: body['id'], conversationId: thread, serviceUrl: fake.serviceUrl, activity, versions: [activity] });
    expect(fake.connectorCalls('POST', '/v3/conversations/*/activities').at(-1)).toMatchObject({
      status: 201,
      body: activity,
      operation: `/v3/conversations/${thread}/activities`,
    });
  });

  it('answers through any region’s service URL and records which', async () => {
    const emea = fake.serviceUrlOf('emea');
    expect((await connector('POST', `${conversation(TEAMS_IDS.personalChat)}/activities`, { type: 'typing' }, undefined, emea)).status).toBe(201);
    expect(fake.posted.at(-1)).toMatchObject({ conversationId: TEAMS_IDS.personalChat, serviceUrl: emea, activity: { type: 'typing' } });
  });

  it('PUT replaces a posted activity and keeps its versions; an id the conversation does not have is 404', async () => {
    const { body } = await connector('POST', `${conversation(thread)}/activities`, card('received'));
    const id = String(body['id']);
    expect(await connector('PUT', `${conversation(thread)}/activities/${id}`, card('running'))).toMatchObject({ status: 200, body: { id } });
    expect(fake.posted.find((entry) => entry.id === id)?.versions).toEqual([card('received'), card('running')]);
    const unknown = await connector('PUT', `${conversation(thread)}/activities/1234`, card('x'));
    expect(unknown).toMatchObject({ status: 404, body: { error: { code: 'ActivityNotFoundInConversation' } } });
    expect((await connector('PUT', `${conversation(TEAMS_IDS.groupChat)}/activities/${id}`, card('x'))).status).toBe(404);
    expect((await connector('PUT', `${conversation(thread)}/activities/${id}`, 'not an activity')).status).toBe(400);
    expect(fake.posted.find((entry) => entry.id === id)?.activity).toEqual(card('running'));
  });

  it('GET member gives the roster entry (id, name, object id, email, UPN) by Teams id or object id, in its conversations only', async () => {
    const ada = await connector('GET', `${conversation(thread)}/members/${encodeURIComponent(TEAMS_PEOPLE.ada.id)}`);
    expect(ada).toMatchObject({
      status: 200,
      body: {
        ...TEAMS_PEOPLE.ada,
        objectId: TEAMS_PEOPLE.ada.aadObjectId,
        email: 'ada@contoso.example',
        userPrincipalName: 'ada@contoso.example',
        tenantId: TEAMS_IDS.tenant,
      },
    });
    expect((await connector('GET', `${conversation(TEAMS_IDS.groupChat)}/members/${TEAMS_PEOPLE.grace.aadObjectId}`)).body).toMatchObject({
      name: 'Grace Hopper',
    });
    expect(await connector('GET', `${conversation(thread)}/members/${TEAMS_PEOPLE.grace.aadObjectId}`)).toMatchObject({
      status: 404,
      body: { error: { code: 'MemberNotFoundInConversation' } },
    });
    expect((await connector('GET', `${conversation(thread)}/members/${TEAMS_PEOPLE.mallory.aadObjectId}`)).status).toBe(404);
  });

  it('POST conversations opens the 1:1 chat of the bot with one member of the tenant: the same chat every time; a group or a stranger is refused', async () => {
    const open = (members: unknown[], isGroup = false) =>
      connector('POST', 'v3/conversations', {
        bot: { id: fake.botId },
        members,
        isGroup,
        tenantId: TEAMS_IDS.tenant,
        channelData: { tenant: { id: TEAMS_IDS.tenant } },
      });
    const first = await open([{ id: TEAMS_PEOPLE.ada.id }]);
    expect(first).toMatchObject({ status: 201, body: { id: expect.stringMatching(/^a:/) } });
    expect((await open([{ id: TEAMS_PEOPLE.ada.aadObjectId }])).body).toEqual(first.body);
    expect(fake.chats.filter((chat) => chat === first.body['id'])).toHaveLength(1);
    expect((await open([{ id: TEAMS_PEOPLE.ada.id }, { id: TEAMS_PEOPLE.grace.id }])).status).toBe(400);
    expect((await open([{ id: TEAMS_PEOPLE.ada.id }], true)).status).toBe(400);
    expect((await open([{ id: '29:1nobody' }])).status).toBe(404);
    const posted = await connector('POST', `${conversation(String(first.body['id']))}/activities`, { type: 'message', text: 'only you' });
    expect(posted.status).toBe(201);
  });

  it('refuses a missing, made-up, forged or expired bearer with 401, and stores nothing', async () => {
    const other = await generateKeyPair('RS256');
    const forged = await new SignJWT({ appid: TEAMS_IDS.clientId })
      .setProtectedHeader({ alg: 'RS256', kid: 'fake-login-key' })
      .setAudience('https://api.botframework.com')
      .setIssuer(`https://sts.windows.net/${TEAMS_IDS.tenant}/`)
      .setExpirationTime(Math.floor(clock / 1000) + 600)
      .sign(other.privateKey);
    const expiring = await accessToken();
    clock += 3599 * 1000;
    const postedBefore = fake.posted.length;
    for (const authorization of [null, 'Bearer not-a-token', `Bearer ${forged}`, `Bearer ${expiring}`, `Basic ${SECRET}`]) {
      expect(await connector('POST', `${conversation(thread)}/activities`, { type: 'message', text: 'x' }, authorization)).toEqual({
        status: 401,
        headers: expect.anything(),
        body: { message: 'Authorization has been denied for this request.' },
      });
    }
    expect(fake.posted).toHaveLength(postedBefore);
    expect((await connector('POST', `${conversation(thread)}/activities`, { type: 'message', text: 'fresh token' })).status).toBe(201);
  });
});

describe('faults as configured', () => {
  it('the next N calls answer 429 with Retry-After, then the connector answers again', async () => {
    fake.failNext({ status: 429, retryAfter: 3, count: 2 });
    const token = `Bearer ${await accessToken()}`;
    const answers = [];
    for (let attempt = 0; attempt < 3; attempt += 1)
      answers.push(await connector('POST', `${conversation(thread)}/activities`, { type: 'message', text: 'throttled' }, token));
    expect(answers.map((answer) => [answer.status, answer.headers.get('retry-after')])).toEqual([
      [429, '3'],
      [429, '3'],
      [201, null],
    ]);
    expect(fake.posted.filter((entry) => entry.activity['text'] === 'throttled')).toHaveLength(1);
  });

  it('a 502 on edits only leaves posts alone; a landed failure stores the post but loses its answer', async () => {
    fake.failNext({ status: 502, method: 'PUT' });
    const { body } = await connector('POST', `${conversation(thread)}/activities`, card('received'));
    expect((await connector('PUT', `${conversation(thread)}/activities/${String(body['id'])}`, card('running'))).status).toBe(502);
    expect((await connector('PUT', `${conversation(thread)}/activities/${String(body['id'])}`, card('running'))).status).toBe(200);
    fake.failNext({ status: 504, land: true });
    const before = fake.posted.length;
    expect((await connector('POST', `${conversation(thread)}/activities`, card('landed'))).status).toBe(504);
    expect(fake.posted.slice(before).map((entry) => entry.activity)).toEqual([card('landed')]);
  });

  it('onAnswer runs after the call is done and before its answer leaves', async () => {
    const seen: number[] = [];
    fake.onAnswer(() => {
      seen.push(fake.posted.length);
    });
    const before = fake.posted.length;
    await connector('POST', `${conversation(thread)}/activities`, { type: 'message', text: 'hooked' });
    fake.onAnswer(undefined);
    expect(seen).toEqual([before + 1]);
  });
});
