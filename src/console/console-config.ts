import type { AppConfig } from '../config/types.js';

/**
 * Whether and how the web console is on, decided once from the validated config:
 * - `token`: `CONSOLE_ADMIN_TOKEN` is set; people sign in with it.
 * - `one-time link`: no token but the built-in emulator runs (a local trial): the start log prints a
 *   link that signs in once, so `npm start` shows the console at once.
 * - `off`: a real run API and no token.
 */
export type ConsoleAccess =
  | { mode: 'off'; why: string }
  | { mode: 'token'; token: string; secureCookies: boolean; publicUrl: string | undefined }
  | { mode: 'one-time link'; secureCookies: boolean; publicUrl: string | undefined };

export function consoleAccess(config: AppConfig): ConsoleAccess {
  const publicUrl = config.http.publicUrl;
  // The browser only sends a `Secure` cookie over https: set it when people reach us that way.
  const secureCookies = publicUrl?.startsWith('https://') === true;
  if (config.console.adminToken) return { mode: 'token', token: config.console.adminToken, secureCookies, publicUrl };
  if (config.agentApi.emulated) return { mode: 'one-time link', secureCookies, publicUrl };
  return { mode: 'off', why: 'set CONSOLE_ADMIN_TOKEN (at least 32 characters) to turn the web console on' };
}
