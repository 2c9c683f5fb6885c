/**
 * A fake Microsoft Teams on 127.0.0.1 for offline tests of a bot: the three services a Teams bot talks
 * to, on one server, each as Microsoft documents it.
 *
 * - The Bot Connector's OpenID metadata (`openIdMetadataUrl`, TEAMS_OPENID_METADATA_URL) and its JWKS,
 *   with keys of its own that `rotateKey` replaces; `signActivityToken` makes the JWT the connector puts
 *   on every activity, and `sendActivity` POSTs an activity to the bot with one, as Teams does. See
 *   "Authenticate requests from the Bot Connector service to your bot"
 *   (https://learn.microsoft.com/azure/bot-service/rest-api/bot-framework-rest-connector-authentication#connector-to-bot).
 * - The login service's token endpoint (`loginUrl`, TEAMS_LOGIN_URL): `POST {loginUrl}/{tenant}/oauth2/v2.0/token`
 *   with a client-credentials form for the scope `https://api.botframework.com/.default`, after "Authenticate
 *   requests from your bot to the Bot Connector service" (same page, #bot-to-connector, single-tenant tab)
 *   and "Microsoft identity platform and the OAuth 2.0 client credentials flow"
 *   (https://learn.microsoft.com/entra/identity-platform/v2-oauth2-client-creds-grant-flow) for its errors.
 * - The Bot Connector REST API under `serviceUrl` (`teams-connector.ts`), which takes only a bearer token
 *   the token endpoint issued and that has not expired (401 otherwise, with the connector's
 *   "Authorization has been denied for this request.").
 *
 * Time is the fake's own (`now`, default the wall clock), so a test expires a token by moving it.
 * `failNext` makes connector calls answer 429 (with Retry-After), 412, 502 or 504, as "Optimize your bot
 * with rate limiting and best practices in Teams"
 * (https://learn.microsoft.com/microsoftteams/platform/bots/how-to/rate-limit) tells a bot to expect.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { teamsConnector } from './teams-connector.js';
import { CONNECTOR_ISSUER, teamsKeys } from './teams-keys.js';
import { answerTokenRequest } from './teams-login.js';
import type { ActivityTokenOptions, FakeTeams, TeamsCall, TeamsFailure } from './teams-types.js';

export type { FakeTeamsMember, PostedActivity } from './teams-connector.js';
export type * from './teams-types.js';

const matches = (pattern: string, path: string) => {
  const want = pattern.split('/');
  const got = path.split('/');
  return want.length === got.length && want.every((part, index) => part === '*' || part === got[index]);
};

const send = (res: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { ...(body !== undefined && { 'content-type': 'application/json; charset=utf-8' }), ...headers });
  res.end(body === undefined ? undefined : JSON.stringify(body));
};

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

/** Starts a fake Teams for one bot (an Entra app: client id and secret, in one tenant). */
export async function startFakeTeams(options: {
  clientId: string;
  clientSecret: string;
  tenantId: string;
  /** The fake's clock in ms (default Date.now): tokens are issued and checked by it. */
  now?: () => number;
  /** Seconds an access token lives (default 3599, as the login service answers). */
  accessTokenLifetime?: number;
}): Promise<FakeTeams> {
  const now = () => Math.floor((options.now ?? Date.now)() / 1000);
  const keys = await teamsKeys();
  const connector = teamsConnector(options.tenantId);
  const calls: TeamsCall[] = [];
  const failures: Array<TeamsFailure & { left: number }> = [];
  let beforeAnswer: ((call: TeamsCall) => void | Promise<void>) | undefined;
  let url = '';

  const record = (call: Omit<TeamsCall, 'seq'>): TeamsCall => {
    const recorded = { seq: calls.length + 1, ...call };
    calls.push(recorded);
    return recorded;
  };

  const connectorCall = async (req: IncomingMessage, res: ServerResponse, segments: string[], body: unknown) => {
    const method = req.method ?? 'GET';
    const serviceUrl = `${url}/${segments[0] ?? ''}/`;
    const operationSegments = segments.slice(1);
    const operation = `/${operationSegments.join('/')}`;
    const base = { kind: 'connector' as const, method, path: req.url ?? '', operation, serviceUrl, body };
    const bearer = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!bearer || !(await keys.acceptsAccessToken(bearer, options.clientId, now()))) {
      record({ ...base, status: 401 });
      return send(res, 401, { message: 'Authorization has been denied for this request.' });
    }
    const failure = failures.find(
      (entry) =>
        entry.left > 0 && (entry.method === undefined || entry.method === method) && (entry.operation === undefined || matches(entry.operation, operation)),
    );
    if (failure) {
      failure.left -= 1;
      if (failure.land) connector.answer(method, operationSegments, body, serviceUrl);
      record({ ...base, status: failure.status });
      const headers: Record<string, string> = failure.retryAfter !== undefined ? { 'retry-after': String(failure.retryAfter) } : {};
      return send(res, failure.status, { error: { code: failure.status === 429 ? 'TooManyRequests' : 'ServiceError', message: 'Injected failure.' } }, headers);
    }
    const result = connector.answer(method, operationSegments, body, serviceUrl);
    const call = record({ ...base, status: result.status });
    await beforeAnswer?.(call);
    send(res, result.status, result.body);
  };

  const respond = async (req: IncomingMessage, res: ServerResponse, text: string) => {
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    const method = req.method ?? 'GET';
    const segments = path.split('/').slice(1).map(decodeURIComponent);
    if (method === 'GET' && path === '/v1/.well-known/openidconfiguration') {
      record({ kind: 'metadata', method, path, body: undefined, status: 200 });
      return send(res, 200, {
        issuer: CONNECTOR_ISSUER,
        authorization_endpoint: 'https://invalid.botframework.com',
        jwks_uri: `${url}/v1/.well-known/keys`,
        id_token_signing_alg_values_supported: ['RS256'],
        token_endpoint_auth_methods_supported: ['private_key_jwt'],
      });
    }
    if (method === 'GET' && path === '/v1/.well-known/keys') {
      record({ kind: 'keys', method, path, body: undefined, status: 200 });
      return send(res, 200, keys.jwks());
    }
    if (segments.length === 4 && segments.slice(1).join('/') === 'oauth2/v2.0/token') {
      const form = new URLSearchParams(text);
      const result = await answerTokenRequest({
        ...options,
        method,
        contentType: req.headers['content-type'],
        tenant: segments[0] ?? '',
        form,
        keys,
        now: now(),
      });
      const fields = Object.fromEntries(form);
      if ('client_secret' in fields) fields['client_secret'] = '***';
      record({ kind: 'token', method, path, body: fields, status: result.status });
      return send(res, result.status, result.body, { 'cache-control': 'no-store' });
    }
    if (segments[1] === 'v3') return connectorCall(req, res, segments, text ? parse(text) : undefined);
    record({ kind: 'unknown', method, path, body: text ? parse(text) : undefined, status: 404 });
    send(res, 404, { error: { code: 'NotFound', message: 'Nothing is served here.' } });
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      respond(req, res, Buffer.concat(chunks).toString('utf8')).catch((error: unknown) =>
        send(res, 500, { error: { code: 'FakeError', message: String(error) } }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const signActivityToken = (token: ActivityTokenOptions) =>
    keys.signConnectorToken({
      audience: token.audience ?? options.clientId,
      issuer: token.issuer ?? CONNECTOR_ISSUER,
      serviceUrl: token.serviceUrl,
      issuedAt: now(),
      expiresIn: token.expiresIn ?? 3600,
      kid: token.kid ?? keys.currentKid(),
      unpublished: token.unpublishedKey ?? false,
    });

  return {
    url,
    openIdMetadataUrl: `${url}/v1/.well-known/openidconfiguration`,
    loginUrl: url,
    serviceUrl: `${url}/amer/`,
    serviceUrlOf: (region) => `${url}/${region}/`,
    clientId: options.clientId,
    tenantId: options.tenantId,
    botId: `28:${options.clientId}`,
    calls,
    connectorCalls: (method, operation) =>
      calls.filter(
        (call) =>
          call.kind === 'connector' &&
          (method === undefined || call.method === method) &&
          (operation === undefined || matches(operation, call.operation ?? '')),
      ),
    tokenRequests: () => calls.filter((call) => call.kind === 'token'),
    posted: connector.posted,
    chats: connector.chats,
    addMember: connector.addMember,
    signActivityToken,
    sendActivity: async (botUrl, activity, how = {}) => {
      const activityServiceUrl = (activity as { serviceUrl?: unknown } | null)?.serviceUrl;
      const claim = typeof activityServiceUrl === 'string' ? activityServiceUrl : null;
      const authorization = how.authorization !== undefined ? how.authorization : `Bearer ${await signActivityToken({ serviceUrl: claim, ...how.token })}`;
      const response = await fetch(botUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8', ...(authorization !== null && { authorization }) },
        body: how.rawBody ?? JSON.stringify(activity),
      });
      const text = await response.text();
      return { status: response.status, text, json: text ? parse(text) : undefined };
    },
    currentKid: () => keys.currentKid(),
    rotateKey: (rotate = {}) => keys.rotate(rotate.keepPrevious ?? false),
    failNext: (failure) => failures.push({ ...failure, left: failure.count ?? 1 }),
    onAnswer: (hook) => {
      beforeAnswer = hook;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
