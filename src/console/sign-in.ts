import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../core/ports/clock.js';
import type { AttemptLimiter } from './attempt-limiter.js';
import { SESSION_COOKIE, SESSION_TTL_MS, SIGN_IN_COOKIE, type ConsoleAuth, type SignedInPerson } from './auth.js';
import { html } from './html.js';
import { clientAddress, cookie, parseForm, queryOf, readCookies, redirect, sendHtml } from './http-io.js';
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
  /** True when Sign in with Slack is on (the page offers it first). */
  slack: boolean;
}

/** GET /console/auth/slack?next=…: where the "Sign in with Slack" button starts. */
export function slackSignInHref(next: string): string {
  return `/console/auth/slack?next=${encodeURIComponent(next)}`;
}

export function signInForm(deps: SignInDeps, res: ServerResponse, status: number, next: string, message?: string, headers: Record<string, string> = {}): void {
  const { nonce, token } = deps.auth.newSignInNonce();
  const slack = deps.slack
    ? html`<p><a class="button" href="${slackSignInHref(next)}" data-testid="slack-sign-in">Sign in with Slack</a></p>
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
      ${message ? html`<p class="flash bad" role="alert">${message}</p>` : ''}${slack}${body}
    </main>`,
  );
  sendHtml(res, status, page, {
    'set-cookie': cookie(SIGN_IN_COOKIE, nonce, { secure: deps.secure, maxAgeSeconds: 3600, sameSite: 'Strict' }),
    ...headers,
  });
}

/**
 * Starts a session (the admin's, or `person`'s) and sends the browser on to `next`; `clear` names
 * cookies to drop. `limitKey` (the address) is forgiven its failed tokens only by a right token or link.
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
  const { cookie: value } = deps.auth.newSession(deps.clock.now(), person);
  redirect(res, next, {
    'set-cookie': [
      cookie(SESSION_COOKIE, value, { secure: deps.secure, maxAgeSeconds: SESSION_TTL_MS / 1000 }),
      cookie(SIGN_IN_COOKIE, '', { secure: deps.secure, maxAgeSeconds: 0, sameSite: 'Strict' }),
      ...clear.map((name) => cookie(name, '', { secure: deps.secure, maxAgeSeconds: 0 })),
    ],
  });
}

/** 429 while the address has failed too often; true when it was answered. */
export function limited(deps: SignInDeps, req: IncomingMessage, res: ServerResponse, next: string): boolean {
  const wait = deps.limiter.retryAfterMs(clientAddress(req), deps.clock.now());
  if (wait === 0) return false;
  const seconds = Math.ceil(wait / 1000);
  signInForm(deps, res, 429, next, `Too many failed sign-ins from your address: try again in ${seconds} s.`, { 'retry-after': String(seconds) });
  return true;
}

/** GET /console/sign-in: the form, or the one-time link's sign-in (`?once=…`). */
export function showSignIn(deps: SignInDeps, req: IncomingMessage, res: ServerResponse): void {
  const query = queryOf(req);
  const next = safeNext(query.get('next'));
  const once = query.get('once');
  if (once === null) return signInForm(deps, res, 200, next);
  if (limited(deps, req, res, next)) return;
  if (deps.auth.consumeOneTimeCode(once)) return signedIn(deps, res, clientAddress(req), next);
  deps.limiter.fail(clientAddress(req), deps.clock.now());
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
  const key = clientAddress(req);
  if (deps.auth.checkToken(form.get('token') ?? '')) return signedIn(deps, res, key, next);
  deps.limiter.fail(key, deps.clock.now());
  signInForm(deps, res, 401, next, 'Wrong token.');
}
