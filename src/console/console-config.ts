import type { AppConfig } from '../config/types.js';

/** Where Slack sends people back after Sign in with Slack, under `PUBLIC_URL`. */
export const SLACK_CALLBACK_PATH = '/console/auth/slack/callback';

/** Sign in with Slack as the console uses it: the OpenID client, the redirect URL, and who is an admin. */
export interface ConsoleSlackSignIn {
  clientId: string;
  clientSecret: string;
  issuer: string;
  /** `PUBLIC_URL/console/auth/slack/callback`: must be listed under OAuth & Permissions → Redirect URLs. */
  redirectUrl: string;
  /** `console.admins`: Slack user IDs who see everything. */
  admins: readonly string[];
}

/** What every way of turning the console on shares; `slack` is set when Sign in with Slack is on. */
interface ConsoleOn {
  secureCookies: boolean;
  publicUrl: string | undefined;
  slack?: ConsoleSlackSignIn;
}

/**
 * Whether and how the web console is on, decided once from the validated config:
 * - `token`: `CONSOLE_ADMIN_TOKEN` is set; people sign in with it (and with Slack when `slack` is set).
 * - `one-time link`: no token but the built-in emulator runs (a local trial): the start log prints a
 *   link that signs in once, so `npm start` shows the console at once.
 * - `slack`: no token, a real run API, and Sign in with Slack on: the only sign-in (admins are `console.admins`).
 * - `off`: a real run API, no token and no Sign in with Slack.
 */
export type ConsoleAccess =
  | { mode: 'off'; why: string }
  | ({ mode: 'token'; token: string } & ConsoleOn)
  | ({ mode: 'one-time link' } & ConsoleOn)
  | ({ mode: 'slack'; slack: ConsoleSlackSignIn } & ConsoleOn);

export function consoleAccess(config: AppConfig): ConsoleAccess {
  const publicUrl = config.http.publicUrl;
  // The browser only sends a `Secure` cookie over https: set it when people reach us that way.
  const secureCookies = publicUrl?.startsWith('https://') === true;
  const signIn = config.console.slackSignIn;
  // The config refuses SLACK_CLIENT_ID without PUBLIC_URL; the check keeps the types honest.
  const slack: ConsoleSlackSignIn | undefined =
    signIn && publicUrl ? { ...signIn, redirectUrl: `${publicUrl}${SLACK_CALLBACK_PATH}`, admins: [...config.console.admins] } : undefined;
  const on = { secureCookies, publicUrl, ...(slack && { slack }) };
  if (config.console.adminToken) return { mode: 'token', token: config.console.adminToken, ...on };
  if (config.agentApi.emulated) return { mode: 'one-time link', ...on };
  if (slack) return { mode: 'slack', ...on, slack };
  return {
    mode: 'off',
    why:
      'AGENT_API_BASE_URL names a real run API and neither CONSOLE_ADMIN_TOKEN nor Sign in with Slack is set (only the built-in emulator opens it without them); ' +
      'set CONSOLE_ADMIN_TOKEN (at least 32 characters) or SLACK_CLIENT_ID and SLACK_CLIENT_SECRET to turn the web console on',
  };
}
