import type { AppConfig } from '../config/types.js';
import { signInOf } from '../config/surface-slices.js';
import { PERSON_IDS, SURFACE_MODULES } from '../surface-list.js';
import type { SignInKind, SignInProvider } from '../surface-kit/sign-in-provider.js';
import type { SurfaceModule } from '../surface-kit/surface-module.js';

/** Where a provider's sign-in starts, and where the provider sends people back (under `PUBLIC_URL`). */
export function signInPaths(provider: Pick<SignInKind, 'id'>): { start: string; callback: string } {
  return { start: `/console/auth/${provider.id}`, callback: `/console/auth/${provider.id}/callback` };
}

/** A sign-in provider that is on, with the surface that offers it (whose workspace it keeps to). */
export interface ConsoleProvider {
  surface: string;
  provider: SignInProvider;
}

/** What every way of turning the console on shares. */
interface ConsoleOn {
  secureCookies: boolean;
  publicUrl: string | undefined;
  /** The sign-in providers that are on, in the order of the list of surfaces: the sign-in page offers each. */
  providers: readonly ConsoleProvider[];
  /** `console.admins` as canonical person ids (`slack:U…` is `U…`): the people who see everything. */
  admins: readonly string[];
}

/**
 * Whether and how the web console is on, decided once from the validated config:
 * - `token`: `CONSOLE_ADMIN_TOKEN` is set; people sign in with it (and with every provider that is on).
 * - `one-time link`: no token but the built-in emulator runs (a local trial): the start log prints a
 *   link that signs in once, so `npm start` shows the console at once.
 * - `providers`: no token, a real run API, and a sign-in provider on: the only ways in (admins are `console.admins`).
 * - `off`: a real run API, no token and no provider.
 */
export type ConsoleAccess =
  { mode: 'off'; why: string } | ({ mode: 'token'; token: string } & ConsoleOn) | ({ mode: 'one-time link' } & ConsoleOn) | ({ mode: 'providers' } & ConsoleOn);

/** The providers the modules offer whose settings are set. */
function providersOf(config: AppConfig, modules: readonly SurfaceModule[], publicUrl: string | undefined): ConsoleProvider[] {
  // The config refuses a provider's variables without PUBLIC_URL; the check keeps the types honest.
  if (publicUrl === undefined) return [];
  return modules.flatMap((module) => {
    const settings = module.signIn && signInOf(config, module);
    if (!module.signIn || settings === undefined) return [];
    const redirectUrl = `${publicUrl}${signInPaths(module.signIn).callback}`;
    return [{ surface: module.name, provider: module.signIn.provider(settings, { redirectUrl }) }];
  });
}

/** Why the console is off, and what turns it on: the admin token, or any sign-in a module offers. */
function whyOff(modules: readonly SurfaceModule[]): string {
  const offers = modules.flatMap((module) => (module.signIn ? [module.signIn] : []));
  const unset = ['CONSOLE_ADMIN_TOKEN', ...offers.map((offer) => offer.name)];
  const set = ['CONSOLE_ADMIN_TOKEN (at least 32 characters)', ...offers.map((offer) => offer.turnOn)];
  return (
    `AGENT_API_BASE_URL names a real run API and ${unset.length > 1 ? `neither ${unset.join(' nor ')} is set` : `${unset[0]} is not set`} ` +
    '(only the built-in emulator opens it without them); ' +
    `set ${set.join(' or ')} to turn the web console on`
  );
}

/** `modules`: the registered surfaces, whose sign-ins the console offers (a test adds its own). */
export function consoleAccess(config: AppConfig, modules: readonly SurfaceModule[] = SURFACE_MODULES): ConsoleAccess {
  const publicUrl = config.http.publicUrl;
  // The browser only sends a `Secure` cookie over https: set it when people reach us that way.
  const secureCookies = publicUrl?.startsWith('https://') === true;
  const providers = providersOf(config, modules, publicUrl);
  const admins = config.console.admins.map((id) => PERSON_IDS.parse(id)?.personId ?? id);
  const on = { secureCookies, publicUrl, providers, admins };
  if (config.console.adminToken) return { mode: 'token', token: config.console.adminToken, ...on };
  if (config.agentApi.emulated) return { mode: 'one-time link', ...on };
  if (providers.length > 0) return { mode: 'providers', ...on };
  return { mode: 'off', why: whyOff(modules) };
}
