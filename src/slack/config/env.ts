/**
 * Slack's environment variables (docs/slack.md, docs/configuration.md): the bot token turns Slack on
 * and needs the signing secret (HTTP) or an app-level token (Socket Mode); the client id and secret
 * turn on Sign in with Slack on the console. Checked one by one, then as sets; problems name the
 * variable and where the Slack app's settings show it, never a secret's value.
 */
import { z } from 'zod';
import { fail, optionalText, secret } from '../../config-kit/env-checks.js';
import type { ConfigProblem } from '../../config-kit/problem.js';
import { checkBaseUrl, HTTPS_ONLY, isLoopbackHost } from '../../config-kit/urls.js';
import type { EnvVariable } from '../../surface-kit/config-slice.js';

export const DEFAULT_SLACK_API_URL = 'https://slack.com/api/';
/** `SLACK_OIDC_ISSUER` unset: Slack's own OpenID provider. */
export const DEFAULT_SLACK_OIDC_ISSUER = 'https://slack.com';

const BOT_TOKEN_HINT = 'find it under OAuth & Permissions → Bot User OAuth Token (xoxb-…) in your Slack app';
const SIGNING_SECRET_HINT = 'find it under Basic Information → App Credentials → Signing Secret in your Slack app';
const APP_TOKEN_HINT = 'create an app-level token (xapp-…, scope connections:write) under Basic Information → App-Level Tokens in your Slack app';
const SLACK_CLIENT_HINT = 'find it in your Slack app under Basic Information → App Credentials (Client ID, Client Secret)';
const REDIRECT_HINT = 'and add PUBLIC_URL/console/auth/slack/callback as a Redirect URL under OAuth & Permissions in your Slack app';

/** Slack's variables, in the order the docs name them. */
export const SLACK_VARIABLES = [
  { name: 'SLACK_BOT_TOKEN', secret: true, hint: BOT_TOKEN_HINT },
  { name: 'SLACK_SIGNING_SECRET', secret: true, hint: SIGNING_SECRET_HINT },
  { name: 'SLACK_APP_TOKEN', secret: true, hint: APP_TOKEN_HINT },
  { name: 'SLACK_API_URL', secret: false, hint: `leave it unset for ${DEFAULT_SLACK_API_URL}` },
  { name: 'SLACK_CLIENT_ID', secret: false, hint: SLACK_CLIENT_HINT },
  { name: 'SLACK_CLIENT_SECRET', secret: true, hint: SLACK_CLIENT_HINT },
  { name: 'SLACK_OIDC_ISSUER', secret: false, hint: `leave it unset for ${DEFAULT_SLACK_OIDC_ISSUER}` },
] as const satisfies readonly EnvVariable[];

const slackToken = (expected: string, wrong: Record<string, string>, hint: string) =>
  secret(hint).transform((value, ctx) => {
    if (value === undefined) return value;
    for (const [prefix, what] of Object.entries(wrong)) {
      if (value.startsWith(prefix)) return fail(ctx, `holds ${what} (${prefix}…) — set the ${expected} here`, hint);
    }
    return value;
  });

const slackApiUrl = optionalText.transform((value, ctx) => {
  if (value === undefined) return DEFAULT_SLACK_API_URL;
  const checked = checkBaseUrl(value);
  if (!checked.ok) return fail(ctx, checked.message, `leave it unset for ${DEFAULT_SLACK_API_URL}`);
  const href = checked.url.href;
  return href.endsWith('/') ? href : `${href}/`;
});

const slackOidcIssuer = optionalText.transform((value, ctx) => {
  if (value === undefined) return DEFAULT_SLACK_OIDC_ISSUER;
  const checked = checkBaseUrl(value);
  if (!checked.ok) return fail(ctx, checked.message, `leave it unset for ${DEFAULT_SLACK_OIDC_ISSUER}`);
  if (checked.url.protocol !== 'https:' && !isLoopbackHost(checked.url.hostname)) {
    return fail(ctx, HTTPS_ONLY, `leave it unset for ${DEFAULT_SLACK_OIDC_ISSUER}`);
  }
  return checked.url.href.replace(/\/+$/, '');
});

/** Each Slack variable checked alone: a token of the wrong kind is named by its prefix, never shown. */
export const slackEnvShape = {
  SLACK_BOT_TOKEN: slackToken('bot token (xoxb-…)', { 'xapp-': 'an app-level token', 'xoxp-': 'a user token' }, BOT_TOKEN_HINT),
  SLACK_SIGNING_SECRET: secret(SIGNING_SECRET_HINT),
  SLACK_APP_TOKEN: slackToken('app-level token (xapp-…)', { 'xoxb-': 'a bot token', 'xoxp-': 'a user token' }, APP_TOKEN_HINT),
  SLACK_API_URL: slackApiUrl,
  SLACK_CLIENT_ID: secret(SLACK_CLIENT_HINT),
  SLACK_CLIENT_SECRET: secret(SLACK_CLIENT_HINT),
  SLACK_OIDC_ISSUER: slackOidcIssuer,
};

/** Sign in with Slack on the console (OpenID Connect); the redirect URL is `PUBLIC_URL/console/auth/slack/callback`. */
export interface SlackSignInConfig {
  clientId: string;
  clientSecret: string;
  /** The OpenID issuer; endpoints and keys come from its `/.well-known/openid-configuration`. */
  issuer: string;
}

/** Slack's checked variables. */
export interface SlackEnv {
  botToken: string | undefined;
  signingSecret: string | undefined;
  appToken: string | undefined;
  apiUrl: string;
  signIn: SlackSignInConfig | undefined;
}

/** Slack's settings from its checked variables; Sign in with Slack only with both its client id and secret. */
export function readSlackEnv(v: z.output<z.ZodObject<typeof slackEnvShape>>): { env: SlackEnv } {
  const signIn =
    v.SLACK_CLIENT_ID !== undefined && v.SLACK_CLIENT_SECRET !== undefined
      ? { clientId: v.SLACK_CLIENT_ID, clientSecret: v.SLACK_CLIENT_SECRET, issuer: v.SLACK_OIDC_ISSUER }
      : undefined;
  return { env: { botToken: v.SLACK_BOT_TOKEN, signingSecret: v.SLACK_SIGNING_SECRET, appToken: v.SLACK_APP_TOKEN, apiUrl: v.SLACK_API_URL, signIn } };
}

/** Slack is on with its bot token (docs/configuration.md). */
export function slackIsOn(env: Readonly<Record<string, string | undefined>>): boolean {
  return env['SLACK_BOT_TOKEN'] !== undefined;
}

/** Slack's variables that must be set together: the bot token with a way to receive events, and Sign in with Slack's. */
export function slackSetProblems(env: Readonly<Record<string, string>>): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const has = (name: string) => env[name] !== undefined;
  if (has('SLACK_BOT_TOKEN') && !has('SLACK_SIGNING_SECRET') && !has('SLACK_APP_TOKEN')) {
    problems.push({
      where: 'SLACK_SIGNING_SECRET',
      message:
        'Slack is half configured: SLACK_BOT_TOKEN is set, but neither SLACK_SIGNING_SECRET (HTTP mode) nor SLACK_APP_TOKEN (Socket Mode) is — set one of them',
      hint: `${SIGNING_SECRET_HINT}; for Socket Mode instead, ${APP_TOKEN_HINT}`,
    });
  }
  const slackOthers = ['SLACK_SIGNING_SECRET', 'SLACK_APP_TOKEN'].filter(has);
  if (!has('SLACK_BOT_TOKEN') && slackOthers.length > 0) {
    problems.push({
      where: 'SLACK_BOT_TOKEN',
      message: `Slack is half configured: ${slackOthers.join(' and ')} ${slackOthers.length > 1 ? 'are' : 'is'} set, but SLACK_BOT_TOKEN is not — set it`,
      hint: `${BOT_TOKEN_HINT}; or unset ${slackOthers.join(' and ')} to turn Slack off`,
    });
  }
  return [...problems, ...signInProblems(env)];
}

/** Sign in with Slack: the client id and secret together, and PUBLIC_URL for the redirect URL. */
function signInProblems(env: Readonly<Record<string, string>>): ConfigProblem[] {
  const has = (name: string) => env[name] !== undefined;
  const problems: ConfigProblem[] = [];
  if (has('SLACK_CLIENT_ID') !== has('SLACK_CLIENT_SECRET')) {
    const [set, missing] = has('SLACK_CLIENT_ID') ? ['SLACK_CLIENT_ID', 'SLACK_CLIENT_SECRET'] : ['SLACK_CLIENT_SECRET', 'SLACK_CLIENT_ID'];
    problems.push({
      where: missing,
      message: `Sign in with Slack is half configured: ${set} is set, but ${missing} is not — set it`,
      hint: `${SLACK_CLIENT_HINT}; or unset ${set} to keep the admin-token sign-in only`,
    });
  }
  if ((has('SLACK_CLIENT_ID') || has('SLACK_CLIENT_SECRET')) && !has('PUBLIC_URL')) {
    problems.push({
      where: 'PUBLIC_URL',
      message: 'required for Sign in with Slack (SLACK_CLIENT_ID is set): Slack sends people back to PUBLIC_URL/console/auth/slack/callback',
      hint: `set it to the address people open, e.g. https://agent-bridge.example.com, ${REDIRECT_HINT}`,
    });
  }
  return problems;
}
