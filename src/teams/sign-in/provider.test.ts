import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CapturingLogger } from '../../../test/core/capturing-logger.js';
import { startFakeOidcProvider, type FakeOidcProvider, type MicrosoftUser } from '../../../test/fakes/oidc-provider.js';
import { reservedPort } from '../../../test/helpers/ports.js';
import type { SignedInIdentity, SignInRouteDeps } from '../../surface-kit/sign-in-provider.js';
import { microsoftSignIn } from './provider.js';

/*
 * Sign in with Microsoft's routes against the fake OpenID provider started as Microsoft's (no PKCE in
 * its discovery document), with the console's side of a sign-in recorded: where the browser is sent and
 * what is kept, who is signed in, and every refusal's status and words.
 */

const TENANT = '5c1a7e0d-2b9f-4e8a-9d3c-7f6b1a2e4c90';
const CLIENT = { clientId: '8d4f2c1a-6e3b-4a7d-b9c2-1e5f7a3d9b60', clientSecret: 'teams-client-secret-unit-0123456789' };
const REDIRECT = 'https://bridge.example.com/console/auth/microsoft/callback';
const ADA: MicrosoftUser = { oid: 'a1d2a3e4-0000-4a00-8a00-00000000ada1', tid: TENANT, name: 'Ada Lovelace' };

let provider: FakeOidcProvider;

beforeAll(async () => {
  provider = await startFakeOidcProvider({ ...CLIENT, advertisesPkce: false });
});
afterAll(async () => {
  await provider?.close();
});

type Refusal = Parameters<SignInRouteDeps['refused']>[1];

/** The console's side of the routes, recording what they asked of it; `kept` is what the browser brings back. */
function consoleSide() {
  const seen = {
    logger: new CapturingLogger(),
    toProvider: [] as Array<{ url: string; pending: Readonly<Record<string, string>>; next: string }>,
    signedIn: [] as SignedInIdentity[],
    refused: [] as Refusal[],
    kept: undefined as { pending: Readonly<Record<string, unknown>>; next: string } | undefined,
  };
  const deps: SignInRouteDeps = {
    logger: seen.logger,
    nextOf: () => '/console/runs',
    toProvider: (_res, url, pending, next) => void seen.toProvider.push({ url, pending, next }),
    pendingOf: () => seen.kept,
    signedIn: (_res, _next, person) => void seen.signedIn.push(person),
    refused: (_res, refusal) => void seen.refused.push(refusal),
  };
  return { seen, deps };
}

const request = (url: string) => ({ url }) as IncomingMessage;
const response = {} as ServerResponse;

function routesAt(issuer: string) {
  const side = consoleSide();
  const routes = microsoftSignIn.provider({ ...CLIENT, tenantId: TENANT, issuer }, { redirectUrl: REDIRECT }).routes(side.deps);
  return { ...side, routes };
}

/** Start, the provider's answer, and the callback as the browser brings it (`spoil` changes it first). */
async function signIn(user: MicrosoftUser, spoil: (callback: URL) => void = () => {}) {
  const { seen, routes } = routesAt(provider.issuer);
  provider.signInAs(user);
  await routes.start(request('/console/auth/microsoft'), response);
  const sent = seen.toProvider[0];
  if (!sent) throw new Error('the start route did not send the browser to the provider');
  seen.kept = { pending: sent.pending, next: sent.next };
  const callback = new URL((await fetch(sent.url, { redirect: 'manual' })).headers.get('location') ?? '');
  spoil(callback);
  await routes.callback(request(`${callback.pathname}${callback.search}`), response);
  return { seen, sent };
}

describe('Sign in with Microsoft', () => {
  it('is offered as Microsoft’s, turned on by Teams’ variables', () => {
    expect(microsoftSignIn).toMatchObject({
      id: 'microsoft',
      name: 'Sign in with Microsoft',
      platform: 'Microsoft',
      turnOn: 'TEAMS_CLIENT_ID, TEAMS_CLIENT_SECRET and TEAMS_TENANT_ID',
    });
  });

  it('asks for openid profile email with state, nonce and a PKCE challenge, though the discovery document does not offer PKCE', async () => {
    const { sent } = await signIn(ADA);
    const authorize = new URL(sent.url);
    expect(authorize.origin).toBe(provider.issuer);
    expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
      client_id: CLIENT.clientId,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'openid profile email',
      code_challenge_method: 'S256',
    });
    expect(Object.keys(sent.pending).sort()).toEqual(['nonce', 'state', 'verifier']);
    expect(provider.tokenRequests.at(-1)?.['code_verifier']).toBe(sent.pending['verifier']);
  });

  it('signs in teams:<oid> of our tenant, named by the id_token and with its tenant as the workspace', async () => {
    const { seen } = await signIn(ADA);
    expect(seen.refused).toEqual([]);
    expect(seen.signedIn).toEqual([{ personId: `teams:${ADA.oid}`, name: 'Ada Lovelace', workspace: TENANT }]);
  });

  it('refuses someone of another tenant with a 403 page saying so, and signs nobody in', async () => {
    const other = '0f0e0d0c-0b0a-4909-8807-060504030201';
    const { seen } = await signIn({ ...ADA, tid: other });
    expect(seen.signedIn).toEqual([]);
    expect(seen.refused).toEqual([
      {
        status: 403,
        next: '/console/runs',
        why: `Your Microsoft account belongs to another organisation (tenant ${other}); this console is for tenant ${TENANT} only.`,
        reason: `the account's tenant ${other} is not ${TENANT}`,
      },
    ]);
  });

  it.each([
    ['a tampered state', (url: URL) => url.searchParams.set('state', 'not-the-state-we-sent-0123456789')],
    ['Microsoft’s own refusal', (url: URL) => (url.searchParams.delete('code'), url.searchParams.set('error', 'access_denied'))],
  ])('refuses %s with a 401 page saying Microsoft’s answer was refused', async (_what, spoil) => {
    const { seen } = await signIn(ADA, spoil);
    expect(seen.signedIn).toEqual([]);
    expect(seen.refused).toEqual([expect.objectContaining({ status: 401, why: expect.stringMatching(/^Microsoft's answer was refused: /) as string })]);
  });

  it('refuses an id_token from another issuer', async () => {
    provider.tamperNext('issuer');
    const { seen } = await signIn(ADA);
    expect(seen.signedIn).toEqual([]);
    expect(seen.refused[0]?.why).toContain("the id_token's issuer (iss) is not the expected one");
  });

  it('refuses a callback without a sign-in in progress (400)', async () => {
    const { seen, routes } = routesAt(provider.issuer);
    await routes.callback(request('/console/auth/microsoft/callback?code=c&state=s'), response);
    expect(seen.refused).toEqual([expect.objectContaining({ status: 400, reason: 'no sign-in in progress' })]);
  });

  it('says Microsoft could not be reached (503) when its issuer does not answer, never with the secret', async () => {
    const { seen, routes } = routesAt(`http://127.0.0.1:${await reservedPort()}`);
    await routes.start(request('/console/auth/microsoft'), response);
    expect(seen.toProvider).toEqual([]);
    expect(seen.refused).toEqual([
      expect.objectContaining({ status: 503, why: expect.stringMatching(/^Microsoft's sign-in could not be reached: /) as string }),
    ]);
    expect(seen.logger.lines.map((line) => line.msg)).toContain('Sign in with Microsoft: the OpenID provider is unavailable');
    expect(JSON.stringify([seen.refused, seen.logger.lines])).not.toContain(CLIENT.clientSecret);
  });
});
