import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { reservedPort } from '../helpers/ports.js';

/**
 * A small OpenID provider on 127.0.0.1 playing Slack's "Sign in with Slack" or the Microsoft identity
 * platform's sign-in, whichever the user it signs in is: the discovery document, its JWKS, an authorize
 * endpoint that signs in whoever the test says and redirects back with a code, and a token endpoint that
 * answers with real id_tokens signed (RS256) by a key generated at start. `tamperNext` makes the next
 * id_token wrong in one way, to prove the service refuses it.
 */

/** A Slack user: the id_token names them by Slack's claims (`https://slack.com/user_id`, `…/team_id`). */
export interface ProviderUser {
  userId: string;
  teamId: string;
  name: string;
}

/**
 * An Entra account, named as Microsoft's id_token names it
 * (https://learn.microsoft.com/entra/identity-platform/id-token-claims-reference): `oid` and `tid`,
 * `name` and `preferred_username` when given, and a `sub` of its own for every app (pairwise), never
 * the object id.
 */
export interface MicrosoftUser {
  oid: string;
  tid: string;
  name?: string;
  preferredUsername?: string;
}

/** What the next id_token gets wrong: signed by another key, another nonce, audience or issuer. */
export type Tamper = 'signature' | 'nonce' | 'audience' | 'issuer';

interface Grant {
  clientId: string;
  redirectUri: string;
  nonce: string | undefined;
  challenge: string | undefined;
  user: ProviderUser | MicrosoftUser;
}

export interface FakeOidcProvider {
  /** The issuer (`http://127.0.0.1:<port>`); SLACK_OIDC_ISSUER. */
  issuer: string;
  /** Who the authorize endpoint signs in next (as if they had clicked "Allow" in Slack, or signed in to Microsoft). */
  signInAs(user: ProviderUser | MicrosoftUser): void;
  tamperNext(tamper: Tamper): void;
  /** Token requests as received (form fields), newest last. */
  tokenRequests: Array<Record<string, string>>;
  /** Authorize requests' query parameters, newest last. */
  authorizeRequests: Array<Record<string, string>>;
  close(): Promise<void>;
}

const KID = 'fake-oidc-key-1';

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

/** A Microsoft account's `sub`: the same for one person and app, another for each app, and never their object id. */
export function pairwiseSub(clientId: string, oid: string): string {
  return createHash('sha256').update(`${clientId}:${oid}`).digest('base64url').slice(0, 43);
}

/** The claims that name `user`, as their platform's id_token carries them. */
function claimsOf(user: ProviderUser | MicrosoftUser, clientId: string): { sub: string; claims: Record<string, string> } {
  if ('oid' in user) {
    const claims: Record<string, string> = { oid: user.oid, tid: user.tid, ver: '2.0' };
    if (user.name !== undefined) claims['name'] = user.name;
    if (user.preferredUsername !== undefined) claims['preferred_username'] = user.preferredUsername;
    return { sub: pairwiseSub(clientId, user.oid), claims };
  }
  return { sub: user.userId, claims: { 'https://slack.com/user_id': user.userId, 'https://slack.com/team_id': user.teamId, name: user.name } };
}

/**
 * `advertisesPkce: false` leaves `code_challenge_methods_supported` out of the discovery document, as
 * Microsoft's does, though a challenge sent is still checked.
 */
export async function startFakeOidcProvider(options: { clientId: string; clientSecret: string; advertisesPkce?: boolean }): Promise<FakeOidcProvider> {
  const keys = await generateKeyPair('RS256', { extractable: true });
  const otherKeys = await generateKeyPair('RS256');
  const publicJwk: JWK = { ...(await exportJWK(keys.publicKey)), kid: KID, alg: 'RS256', use: 'sig' };
  const grants = new Map<string, Grant>();
  let user: ProviderUser | MicrosoftUser = { userId: 'U0AAAAAAA', teamId: 'T0AAAAAAA', name: 'Someone' };
  let tamper: Tamper | undefined;
  let issuer = '';
  const tokenRequests: Array<Record<string, string>> = [];
  const authorizeRequests: Array<Record<string, string>> = [];

  async function idToken(grant: Grant): Promise<string> {
    const wrong = tamper;
    tamper = undefined;
    const key: CryptoKey = wrong === 'signature' ? otherKeys.privateKey : keys.privateKey;
    const { sub, claims } = claimsOf(grant.user, grant.clientId);
    return new SignJWT({ ...(grant.nonce !== undefined && { nonce: wrong === 'nonce' ? 'not-the-nonce-you-sent' : grant.nonce }), ...claims })
      .setProtectedHeader({ alg: 'RS256', kid: KID, typ: 'JWT' })
      .setIssuer(wrong === 'issuer' ? 'https://evil.example.com' : issuer)
      .setAudience(wrong === 'audience' ? 'some-other-client' : grant.clientId)
      .setSubject(sub)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(key);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', issuer);
    if (req.method === 'GET' && url.pathname === '/.well-known/openid-configuration') {
      return json(res, 200, {
        issuer,
        authorization_endpoint: `${issuer}/openid/connect/authorize`,
        token_endpoint: `${issuer}/api/openid.connect.token`,
        jwks_uri: `${issuer}/openid/connect/keys`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        scopes_supported: ['openid', 'profile', 'email'],
        token_endpoint_auth_methods_supported: ['client_secret_post'],
        ...(options.advertisesPkce !== false && { code_challenge_methods_supported: ['S256'] }),
        claims_supported: [
          ...['sub', 'https://slack.com/user_id', 'https://slack.com/team_id', 'name', 'iss', 'aud', 'exp', 'iat', 'nonce'],
          ...['oid', 'tid', 'preferred_username', 'ver'],
        ],
      });
    }
    if (req.method === 'GET' && url.pathname === '/openid/connect/keys') return json(res, 200, { keys: [publicJwk] });
    if (req.method === 'GET' && url.pathname === '/openid/connect/authorize') {
      const query = Object.fromEntries(url.searchParams);
      authorizeRequests.push(query);
      const redirectUri = query['redirect_uri'];
      if (query['client_id'] !== options.clientId || !redirectUri || query['response_type'] !== 'code') return json(res, 400, { error: 'invalid_request' });
      const code = randomBytes(16).toString('hex');
      grants.set(code, { clientId: options.clientId, redirectUri, nonce: query['nonce'], challenge: query['code_challenge'], user });
      const back = new URL(redirectUri);
      back.searchParams.set('code', code);
      if (query['state'] !== undefined) back.searchParams.set('state', query['state']);
      res.writeHead(302, { location: back.href });
      return void res.end();
    }
    if (req.method === 'POST' && url.pathname === '/api/openid.connect.token') {
      const form = await readForm(req);
      tokenRequests.push(Object.fromEntries(form));
      if (form.get('client_id') !== options.clientId || form.get('client_secret') !== options.clientSecret) return json(res, 401, { error: 'invalid_client' });
      const code = form.get('code') ?? '';
      const grant = grants.get(code);
      grants.delete(code);
      if (!grant || form.get('redirect_uri') !== grant.redirectUri) return json(res, 400, { error: 'invalid_grant' });
      if (grant.challenge !== undefined) {
        const verifier = form.get('code_verifier') ?? '';
        if (createHash('sha256').update(verifier).digest('base64url') !== grant.challenge) return json(res, 400, { error: 'invalid_grant' });
      }
      return json(res, 200, { ok: true, access_token: `xoxp-fake-${randomBytes(8).toString('hex')}`, token_type: 'Bearer', id_token: await idToken(grant) });
    }
    json(res, 404, { error: 'not_found' });
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => json(res, 500, { error: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    signInAs: (next) => {
      user = next;
    },
    tamperNext: (next) => {
      tamper = next;
    },
    tokenRequests,
    authorizeRequests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port held for this test before anything listens on it: for a service that must know its own URL (PUBLIC_URL) before it listens. */
export async function freePort(): Promise<number> {
  return reservedPort();
}
