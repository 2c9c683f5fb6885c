/**
 * Sign in with Slack as Slack's module offers it to the console (`surface-kit/sign-in-provider.ts`):
 * on with `SLACK_CLIENT_ID` and `SLACK_CLIENT_SECRET`, whether or not Slack's bot is. It is OpenID
 * Connect (`surface-kit/openid-sign-in.ts`); the OpenID client (and `openid-client` with it) is
 * loaded at the first sign-in, so a service or a CLI command that never signs anyone in does not load it.
 */
import type { OpenIdSignIn } from '../../surface-kit/openid-sign-in.js';
import { openIdRoutes } from '../../surface-kit/openid-routes.js';
import type { SignInKind, SignInOffer } from '../../surface-kit/sign-in-provider.js';
import type { SlackSignInConfig } from '../config/env.js';
import { slackIdentity } from './identity.js';

/** Its paths are `/console/auth/slack` and `/console/auth/slack/callback`, which Slack apps list as their redirect URL. */
const KIND: SignInKind = { id: 'slack', name: 'Sign in with Slack', platform: 'Slack' };

/** Slack's console sign-in. */
export const slackSignIn: SignInOffer<SlackSignInConfig> = {
  ...KIND,
  turnOn: 'SLACK_CLIENT_ID and SLACK_CLIENT_SECRET',
  provider(settings, { redirectUrl }) {
    let client: Promise<OpenIdSignIn> | undefined;
    const openId = () =>
      (client ??= import('../../surface-kit/openid-sign-in.js').then(
        ({ OpenIdSignIn }) => new OpenIdSignIn({ ...settings, redirectUrl, scope: 'openid profile', pkce: 'when-offered' }),
      ));
    return {
      ...KIND,
      // Slack and every collaborator of the Slack app can read it: mixed into the signing key, never its root.
      secret: settings.clientSecret,
      logFields: { redirectUrl, issuer: settings.issuer },
      routes: (deps) => openIdRoutes({ kind: KIND, client: openId, identify: slackIdentity }, deps),
    };
  },
};
