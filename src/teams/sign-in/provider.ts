/**
 * Sign in with Microsoft as Teams' module offers it to the console (`surface-kit/sign-in-provider.ts`):
 * on whenever Teams' Entra app is complete (`TEAMS_CLIENT_ID`, `TEAMS_CLIENT_SECRET`,
 * `TEAMS_TENANT_ID`), on the same app, whose redirect URIs (platform "Web") must list
 * `PUBLIC_URL/console/auth/microsoft/callback`. It is OpenID Connect (`surface-kit/openid-sign-in.ts`)
 * against the tenant's own issuer; the OpenID client (and `openid-client` with it) is loaded at the
 * first sign-in, so a service or a CLI command that never signs anyone in does not load it.
 */
import type { OpenIdSignIn } from '../../surface-kit/openid-sign-in.js';
import { openIdRoutes } from '../../surface-kit/openid-routes.js';
import type { SignInKind, SignInOffer } from '../../surface-kit/sign-in-provider.js';
import type { MicrosoftSignInConfig } from '../config/env.js';
import { microsoftIdentity } from './identity.js';

/** Its paths are `/console/auth/microsoft` and `/console/auth/microsoft/callback`. */
const KIND: SignInKind = { id: 'microsoft', name: 'Sign in with Microsoft', platform: 'Microsoft' };

/** Teams' console sign-in. */
export const microsoftSignIn: SignInOffer<MicrosoftSignInConfig> = {
  ...KIND,
  turnOn: 'TEAMS_CLIENT_ID, TEAMS_CLIENT_SECRET and TEAMS_TENANT_ID',
  provider(settings, { redirectUrl }) {
    let client: Promise<OpenIdSignIn> | undefined;
    const { clientId, clientSecret, issuer, tenantId } = settings;
    // Microsoft takes PKCE without offering it in its discovery document: sent always.
    const openId = () =>
      (client ??= import('../../surface-kit/openid-sign-in.js').then(
        ({ OpenIdSignIn }) => new OpenIdSignIn({ clientId, clientSecret, issuer, redirectUrl, scope: 'openid profile email', pkce: 'always' }),
      ));
    return {
      ...KIND,
      // The app's owners in Entra can read it: mixed into the signing key, never its root.
      secret: clientSecret,
      logFields: { redirectUrl, issuer, tenantId },
      routes: (deps) => openIdRoutes({ kind: KIND, client: openId, identify: (claims) => microsoftIdentity(claims, tenantId) }, deps),
    };
  },
};
