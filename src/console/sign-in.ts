import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../core/ports/clock.js';
import type { SignInKind } from '../surface-kit/sign-in-provider.js';
import type { AttemptLimiter } from './attempt-limiter.js';
import { KNOWN_BROWSER_COOKIE, KNOWN_BROWSER_TTL_MS, SESSION_COOKIE, SESSION_TTL_MS, SIGN_IN_COOKIE, type ConsoleAuth, type SignedInPerson } from './auth.js';
import { html } from './html.js';
import { clientAddress, cookie, parseForm, queryOf, readCookies, redirect, sendHtml } from './http-io.js';
import { signInPaths } from './console-config.js';
import { document } from './layout.js';

/** Where to go after signing in: a console path of ours, never another site. */
export function safeNext(next: string | null | undefined): string {
  return next && /^\/console\/[A-Za-z0-9/_?=&%.~+-]*$/.test(next) && !next.startsWith('//') ? next : '/console/runs';
}

export interface SignInDeps {
  auth: ConsoleAuth;
  limiter: AttemptLimiter;
  clock: Clock;
  secure: boolean;
  /** True when a token is configured (the form asks for it). */
  tokenMode: boolean;
  /** True with the built-in emulator and no token: the start log's one-time link signs in. */
  oneTimeLink: boolean;
  /** The sign-in providers that are on: the page offers a button for each, first. */
  providers: readonly SignInKind[];
}

/** GET /console/auth/<id>?next=…: where a provider's button ("Sign in with Slack") starts. */
export function providerSignInHref(provider: Pick<SignInKind, 'id'>, next: string): string {
  return `${signInPaths(provider).start}?next=${encodeURIComponent(next)}`;
}

export function signInForm(deps: SignInDeps, res: ServerResponse, status: number, next: string, message?: string, headers: Record<string, string> = {}): void {
  const { nonce, token } = deps.auth.newSignInNonce();
  const buttons = deps.providers.map(
    (provider) => html`<p><a class="button" href="${providerSignInHref(provider, next)}" data-testid="${provider.id}-sign-in">${provider.name}</a></p>`,
  );
  const providers =
    buttons.length > 0
      ? html`${buttons}
        ${deps.tokenMode ? html`<h2>Break-glass: the admin token</h2>` : ''}`
      : '';
  const body = deps.tokenMode
    ? html`<form method="post" action="/console/sign-in">
        <input type="hidden" name="csrf" value="${token}" />
        <input type="hidden" name="next" value="${next}" />
        <label for="token">Admin token (CONSOLE_ADMIN_TOKEN)</label>
        <input id="token" name="token" type="password" autocomplete="current-password" required autofocus />
        <button type="submit">Sign in</button>
      </form>`
    : deps.oneTimeLink
      ? html`<p>
          Open the one-time sign-in link that the service printed in its start log. Restart the service for a new one, or set <code>CONSOLE_ADMIN_TOKEN</code>
          to sign in with a token.
        </p>`
      : '';
  const page = document(
    'Sign in',
    html`<main class="sign-in">
      <h1>agent-bridge console</h1>
      ${message ? html`<p class="flash bad" role="alert">${message}</p>` : ''}${providers}${body}
    </main>`,
  );
  sendHtml(res, status, page, {
    'set-cookie': cookie(SIGN_IN_COOKIE, nonce, { secure: deps.secure, maxAgeSeconds: 3600, sameSite: 'Strict' }),
    ...headers,
  });
}

/**
 * Whose failed admin tokens an attempt counts against. A guess must be slowed down, but a
 * stranger must not be able to lock out the person who holds the right token — behind a proxy every
 * caller has the proxy's address, so a lock per address alone let five anonymous guesses lock
 * everybody out. So a browser someone already signed in from carries a mark only the service can
 * sign (`KNOWN_BROWSER_COOKIE`, 30 days), and its attempts count against that browser alone: the
 * address's lock never applies to it, and a stranger, who has no such mark, can only lock the address
 * (new browsers there) — never a browser the admin used before. Everyone else counts against their
 * address (the socket's: a forwarded header is anyone's to write). `?once=` links are not token
 * guesses and count against nothing (192 random bits: not guessable). Counted per replica, in memory.
 */
export function limitKeyOf(deps: SignInDeps, req: IncomingMessage): { key: string; who: 'browser' | 'address' } {
  const known = deps.auth.readKnownBrowser(readCookies(req).get(KNOWN_BROWSER_COOKIE), deps.clock.now());
  return known ? { key: `browser:${known}`, who: 'browser' } : { key: `address:${clientAddress(req)}`, who: 'address' };
}

/**
 * Starts a session (the admin's, or `person`'s) and sends the browser on to `next`, marking it as a
 * known browser (`limitKeyOf`); `clear` names cookies to drop. `limitKey` is forgiven its failed
 * tokens only by a right token.
 */
export function signedIn(
  deps: SignInDeps,
  res: ServerResponse,
  limitKey: string | undefined,
  next: string,
  person?: SignedInPerson,
  clear: string[] = [],
): void {
  if (limitKey !== undefined) deps.limiter.succeed(limitKey);
  const now = deps.clock.now();
  const { cookie: value } = deps.auth.newSession(now, person);
  redirect(res, next, {
    'set-cookie': [
      cookie(SESSION_COOKIE, value, { secure: deps.secure, maxAgeSeconds: SESSION_TTL_MS / 1000 }),
      cookie(KNOWN_BROWSER_COOKIE, deps.auth.newKnownBrowser(now), { secure: deps.secure, maxAgeSeconds: KNOWN_BROWSER_TTL_MS / 1000, sameSite: 'Strict' }),
      cookie(SIGN_IN_COOKIE, '', { secure: deps.secure, maxAgeSeconds: 0, sameSite: 'Strict' }),
      ...clear.map((name) => cookie(name, '', { secure: deps.secure, maxAgeSeconds: 0 })),
    ],
  });
}

/** 429 while the browser or address (`limitKeyOf`) has failed too often; true when it was answered. */
export function limited(deps: SignInDeps, req: IncomingMessage, res: ServerResponse, next: string): boolean {
  const { key, who } = limitKeyOf(deps, req);
  const wait = deps.limiter.retryAfterMs(key, deps.clock.now());
  if (wait === 0) return false;
  const seconds = Math.ceil(wait / 1000);
  const from = who === 'browser' ? 'this browser' : 'your address';
  signInForm(deps, res, 429, next, `Too many failed sign-ins from ${from}: try again in ${seconds} s.`, { 'retry-after': String(seconds) });
  return true;
}

/**
 * GET /console/sign-in: the form, or the one-time link's sign-in (`?once=…`). A wrong or spent link
 * is not a token guess and counts against nothing (`limitKeyOf`): anyone, or any web page a visitor
 * opens, can send one.
 */
export function showSignIn(deps: SignInDeps, req: IncomingMessage, res: ServerResponse): void {
  const query = queryOf(req);
  const next = safeNext(query.get('next'));
  const once = query.get('once');
  if (once === null) return signInForm(deps, res, 200, next);
  if (deps.auth.consumeOneTimeCode(once)) return signedIn(deps, res, undefined, next);
  signInForm(deps, res, 401, next, 'That sign-in link is not valid (it works once).');
}

/** POST /console/sign-in: the admin token, checked against the rate limit and the form's CSRF token. */
export async function submitSignIn(deps: SignInDeps, req: IncomingMessage, res: ServerResponse, readBody: () => Promise<Buffer>): Promise<void> {
  const form = parseForm(await readBody());
  const next = safeNext(form.get('next'));
  if (limited(deps, req, res, next)) return;
  if (!deps.auth.checkSignInToken(readCookies(req).get(SIGN_IN_COOKIE), form.get('csrf') ?? undefined)) {
    return signInForm(deps, res, 403, next, 'The sign-in form expired (or came from another site): please try again.');
  }
  const { key } = limitKeyOf(deps, req);
  if (deps.auth.checkToken(form.get('token') ?? '')) return signedIn(deps, res, key, next);
  deps.limiter.fail(key, deps.clock.now());
  signInForm(deps, res, 401, next, 'Wrong token.');
}
