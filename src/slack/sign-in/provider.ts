/**
 * Sign in with Slack as Slack's module offers it to the console (`surface-kit/sign-in-provider.ts`):
 * on with `SLACK_CLIENT_ID` and `SLACK_CLIENT_SECRET`, whether or not Slack's bot is. The OpenID
 * client (and `openid-client` with it) is loaded at the first sign-in, so a service or a CLI command
 * that never signs anyone in does not load it.
 */
import type { SignInKind, SignInOffer } from '../../surface-kit/sign-in-provider.js';
import type { SlackSignInConfig } from '../config/env.js';
import { finishSlackSignIn, startSlackSignIn, type SlackSignInDeps } from './endpoints.js';
import type { SlackOidc } from './oidc.js';

/** Its paths are `/console/auth/slack` and `/console/auth/slack/callback`, which Slack apps list as their redirect URL. */
const KIND: SignInKind = { id: 'slack', name: 'Sign in with Slack', platform: 'Slack' };

/** Slack's console sign-in. */
export const slackSignIn: SignInOffer<SlackSignInConfig> = {
  ...KIND,
  turnOn: 'SLACK_CLIENT_ID and SLACK_CLIENT_SECRET',
  provider(settings, { redirectUrl }) {
    let client: Promise<SlackOidc> | undefined;
    const oidc = () => (client ??= import('./oidc.js').then(({ SlackOidc }) => new SlackOidc({ ...settings, redirectUrl })));
    return {
      ...KIND,
      // Slack and every collaborator of the Slack app can read it: mixed into the signing key, never its root.
      secret: settings.clientSecret,
      logFields: { redirectUrl, issuer: settings.issuer },
      routes(deps) {
        const slack: SlackSignInDeps = { ...deps, oidc };
        return { start: (req, res) => startSlackSignIn(slack, req, res), callback: (req, res) => finishSlackSignIn(slack, req, res) };
      },
    };
  },
};
