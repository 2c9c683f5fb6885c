/**
 * The signing keys of the fake Microsoft Teams (`teams-api.ts`): the Bot Connector's keys, which sign
 * the JWT on every activity it POSTs to a bot and are published in its OpenID metadata's `jwks_uri`,
 * and the login service's key, which signs the access tokens a bot gets by client credentials.
 *
 * What a connector token holds, after "Authenticate requests from the Bot Connector service to your
 * bot" (https://learn.microsoft.com/azure/bot-service/rest-api/bot-framework-rest-connector-authentication#connector-to-bot):
 * header `{typ: "JWT", alg: "RS256", kid, x5t}` (Microsoft's keys carry the same value in both), claims
 * `iss` `https://api.botframework.com`, `aud` the bot's app id, `nbf`, `exp`, and `serviceurl` — the
 * page writes "serviceUrl", the tokens and Microsoft's own validators (botbuilder-js
 * `AuthenticationConstants.ServiceUrlClaim = 'serviceurl'`) write it in lower case. Each published key
 * also has `endorsements`, the channel ids it may sign for (`msteams`).
 */
import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, jwtVerify, SignJWT, type CryptoKey, type JWK } from 'jose';

/** The issuer of every token the Bot Connector sends to a bot. */
export const CONNECTOR_ISSUER = 'https://api.botframework.com';
/** The scope a bot asks the login service for, and the `aud` of the access token it gets. */
export const CONNECTOR_SCOPE = 'https://api.botframework.com/.default';
const CONNECTOR_AUDIENCE = 'https://api.botframework.com';

interface KeyPair {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

/** The claims and header a connector token is made of; every field may be made wrong on purpose. */
export interface ConnectorTokenClaims {
  /** `aud`: the bot's client id. */
  audience: string;
  /** `iss`: `https://api.botframework.com` unless a test forges another. */
  issuer: string;
  /** The `serviceurl` claim; null leaves it out. */
  serviceUrl: string | null;
  /** Seconds since the epoch the token is issued at (`nbf`, `iat`). */
  issuedAt: number;
  /** Seconds the token lives; negative makes one that expired that long before `issuedAt`. */
  expiresIn: number;
  /** The header's `kid` (and `x5t`). */
  kid: string;
  /** Signed by a key the metadata never published, while naming `kid` (a forgery). */
  unpublished: boolean;
}

/** The Bot Connector's published keys (one or more; rotation adds one) and the login service's key. */
export interface TeamsKeys {
  /** The kid tokens are signed with unless one names another. */
  currentKid(): string;
  /** The JWKS document served at `jwks_uri`. */
  jwks(): { keys: JWK[] };
  /** Makes a new connector key the current one; `keepPrevious: false` also stops publishing the others. */
  rotate(keepPrevious: boolean): Promise<string>;
  /** A connector token (RS256) with exactly the given claims. */
  signConnectorToken(claims: ConnectorTokenClaims): Promise<string>;
  /** An access token for the bot, as the login service issues it (`aud` api.botframework.com, `appid`, `tid`). */
  issueAccessToken(input: { clientId: string; tenantId: string; issuedAt: number; expiresIn: number }): Promise<string>;
  /** Whether an access token is one this login service issued to `clientId` and still valid at `now` (seconds). */
  acceptsAccessToken(token: string, clientId: string, now: number): Promise<boolean>;
}

async function newKeyPair(): Promise<KeyPair> {
  const kid = randomBytes(12).toString('base64url');
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const publicJwk: JWK = { ...(await exportJWK(publicKey)), kid, x5t: kid, use: 'sig', endorsements: ['msteams'] } as JWK;
  return { kid, privateKey, publicJwk };
}

/** Keys for one fake Teams: a published connector key, an unpublished one for forgeries, and the login key. */
export async function teamsKeys(): Promise<TeamsKeys> {
  let published: KeyPair[] = [await newKeyPair()];
  // Every key it ever had, so a test can sign with a retired one: a token made before a rotation.
  const made: KeyPair[] = [...published];
  const forger = await newKeyPair();
  const login = await generateKeyPair('RS256');
  let current = published[0] as KeyPair;

  return {
    currentKid: () => current.kid,
    jwks: () => ({ keys: published.map((pair) => pair.publicJwk) }),
    rotate: async (keepPrevious) => {
      current = await newKeyPair();
      made.push(current);
      published = keepPrevious ? [...published, current] : [current];
      return current.kid;
    },
    signConnectorToken: (claims) => {
      const key = claims.unpublished ? forger.privateKey : (made.find((pair) => pair.kid === claims.kid) ?? current).privateKey;
      const notBefore = claims.expiresIn < 0 ? claims.issuedAt + claims.expiresIn - 60 : claims.issuedAt;
      return new SignJWT(claims.serviceUrl === null ? {} : { serviceurl: claims.serviceUrl })
        .setProtectedHeader({ typ: 'JWT', alg: 'RS256', kid: claims.kid, x5t: claims.kid })
        .setIssuer(claims.issuer)
        .setAudience(claims.audience)
        .setNotBefore(notBefore)
        .setIssuedAt(notBefore)
        .setExpirationTime(claims.issuedAt + claims.expiresIn)
        .sign(key);
    },
    issueAccessToken: ({ clientId, tenantId, issuedAt, expiresIn }) =>
      new SignJWT({ appid: clientId, tid: tenantId, ver: '1.0' })
        .setProtectedHeader({ typ: 'JWT', alg: 'RS256', kid: 'fake-login-key' })
        .setIssuer(`https://sts.windows.net/${tenantId}/`)
        .setAudience(CONNECTOR_AUDIENCE)
        .setNotBefore(issuedAt)
        .setIssuedAt(issuedAt)
        .setExpirationTime(issuedAt + expiresIn)
        .sign(login.privateKey),
    acceptsAccessToken: async (token, clientId, now) => {
      try {
        const { payload } = await jwtVerify(token, login.publicKey, { audience: CONNECTOR_AUDIENCE, currentDate: new Date(now * 1000) });
        return payload['appid'] === clientId;
      } catch {
        return false;
      }
    },
  };
}
