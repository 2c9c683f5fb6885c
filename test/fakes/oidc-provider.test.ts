import { createHash } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEAMS_IDS, TEAMS_PEOPLE } from '../fixtures/teams/index.js';
import { pairwiseSub, startFakeOidcProvider, type FakeOidcProvider, type MicrosoftUser, type ProviderUser } from './oidc-provider.js';

/*
 * The fake OpenID provider's id_tokens are what its platform's would be, checked as any relying party
 * checks them (signature by a key of the JWKS the discovery document names, issuer, audience): Slack's
 * claims for a Slack user, Microsoft's `oid`, `tid` and a pairwise `sub` for an Entra account. Started
 * as Microsoft's, its discovery document does not offer PKCE, yet a challenge sent is still checked.
 */

const CLIENT = { clientId: TEAMS_IDS.clientId, clientSecret: 'fake-oidc-secret-0123456789' };
const REDIRECT = 'http://127.0.0.1:1/console/auth/microsoft/callback';
const ADA: MicrosoftUser = { oid: TEAMS_PEOPLE.ada.aadObjectId, tid: TEAMS_IDS.tenant, name: 'Ada Lovelace', preferredUsername: 'ada@contoso.example' };
const SLACK_USER: ProviderUser = { userId: 'U0ADA0001', teamId: 'T0TEAM001', name: 'Ada on Slack' };

let microsoft: FakeOidcProvider;
let slack: FakeOidcProvider;

beforeAll(async () => {
  microsoft = await startFakeOidcProvider({ ...CLIENT, advertisesPkce: false });
  slack = await startFakeOidcProvider(CLIENT);
});
afterAll(async () => {
  await microsoft?.close();
  await slack?.close();
});

async function discovery(provider: FakeOidcProvider) {
  return (await (await fetch(`${provider.issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown> & {
    authorization_endpoint: string;
    token_endpoint: string;
    jwks_uri: string;
  };
}

/** The code flow as a relying party runs it, up to the token endpoint's answer. */
async function signIn(provider: FakeOidcProvider, user: ProviderUser | MicrosoftUser, verifier?: { sent: string; challenged: string }) {
  provider.signInAs(user);
  const metadata = await discovery(provider);
  const authorize = new URL(metadata.authorization_endpoint);
  const challenge = verifier && createHash('sha256').update(verifier.challenged).digest('base64url');
  for (const [name, value] of Object.entries({ client_id: CLIENT.clientId, redirect_uri: REDIRECT, response_type: 'code', nonce: 'n-0123456789', state: 's' }))
    authorize.searchParams.set(name, value);
  if (challenge) authorize.searchParams.set('code_challenge', challenge);
  const back = new URL((await fetch(authorize, { redirect: 'manual' })).headers.get('location') ?? '');
  const form = new URLSearchParams({ client_id: CLIENT.clientId, client_secret: CLIENT.clientSecret, grant_type: 'authorization_code' });
  form.set('code', back.searchParams.get('code') ?? '');
  form.set('redirect_uri', REDIRECT);
  if (verifier) form.set('code_verifier', verifier.sent);
  const answer = await fetch(metadata.token_endpoint, { method: 'POST', body: form });
  return { status: answer.status, body: (await answer.json()) as { id_token?: string; error?: string }, metadata };
}

async function verified(provider: FakeOidcProvider, idToken: string, jwksUri: string) {
  const { payload } = await jwtVerify(idToken, createRemoteJWKSet(new URL(jwksUri)), { issuer: provider.issuer, audience: CLIENT.clientId });
  return payload;
}

describe('the fake OpenID provider', () => {
  it('names an Entra account as Microsoft does: oid, tid, name, preferred_username, and a pairwise sub that is not the oid', async () => {
    const { status, body, metadata } = await signIn(microsoft, ADA);
    expect(status).toBe(200);
    const claims = await verified(microsoft, body.id_token ?? '', metadata.jwks_uri);
    expect(claims).toMatchObject({ oid: ADA.oid, tid: ADA.tid, name: 'Ada Lovelace', preferred_username: 'ada@contoso.example', nonce: 'n-0123456789' });
    expect(claims.sub).toBe(pairwiseSub(CLIENT.clientId, ADA.oid));
    expect(claims.sub).not.toBe(ADA.oid);
    expect(claims).not.toHaveProperty('https://slack.com/user_id');
    expect(pairwiseSub('another-app', ADA.oid)).not.toBe(claims.sub);
  });

  it('leaves out the name claims an account does not have', async () => {
    const { body, metadata } = await signIn(microsoft, { oid: ADA.oid, tid: ADA.tid });
    const claims = await verified(microsoft, body.id_token ?? '', metadata.jwks_uri);
    expect(claims).not.toHaveProperty('name');
    expect(claims).not.toHaveProperty('preferred_username');
  });

  it('still names a Slack user by Slack’s claims', async () => {
    const { body, metadata } = await signIn(slack, SLACK_USER);
    const claims = await verified(slack, body.id_token ?? '', metadata.jwks_uri);
    expect(claims).toMatchObject({
      sub: 'U0ADA0001',
      'https://slack.com/user_id': 'U0ADA0001',
      'https://slack.com/team_id': 'T0TEAM001',
      name: 'Ada on Slack',
    });
    expect(claims).not.toHaveProperty('oid');
  });

  it('offers PKCE in its discovery document unless started as Microsoft’s, and checks a challenge sent either way', async () => {
    expect((await discovery(slack))['code_challenge_methods_supported']).toEqual(['S256']);
    expect(await discovery(microsoft)).not.toHaveProperty('code_challenge_methods_supported');
    const verifier = 'v'.repeat(43);
    expect((await signIn(microsoft, ADA, { sent: verifier, challenged: verifier })).status).toBe(200);
    const wrong = await signIn(microsoft, ADA, { sent: 'w'.repeat(43), challenged: verifier });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ error: 'invalid_grant' });
  });
});
