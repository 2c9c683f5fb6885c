/**
 * The two routes of Sign in with Slack: `GET /console/auth/slack` sends the browser to the provider
 * with a fresh state, nonce and PKCE challenge (sealed in a short-lived cookie, so any replica can
 * finish the sign-in), and `GET /console/auth/slack/callback` finishes it. Every refusal is a page
 * that says why, and starts no session. Neither route counts toward the admin token's rate limit: a
 * refused callback guesses nothing (an id_token cannot be forged without the provider's key), and a
 * flood of wrong tokens must not lock people out of Slack's sign-in.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../core/ports/logger.js';
import { PENDING_TTL_MS } from './auth.js';
import { html } from './html.js';
import { cookie, queryOf, readCookies, redirect, sendHtml } from './http-io.js';
import { document } from './layout.js';
import { safeNext, signedIn, slackSignInHref, type SignInDeps } from './sign-in.js';
import { ProviderUnavailable, SignInRefused, type PendingSignIn, type SlackOidc } from './slack-oidc.js';

/** The cookie that carries a sign-in in progress (state, nonce, PKCE verifier, where to go next). */
export const PENDING_COOKIE = 'agent_bridge_console_oidc';

export interface SlackSignInDeps extends SignInDeps {
  oidc: SlackOidc;
  logger: Logger;
  /** The bot token's workspace (team id): anyone signed in by Slack from another workspace is refused. Absent: not checked. */
  workspace?: string;
}

function refusedPage(deps: SlackSignInDeps, res: ServerResponse, status: number, next: string, why: string): void {
  const page = document(
    'Sign in with Slack failed',
    html`<main class="sign-in">
      <h1>Sign in with Slack failed</h1>
      <p class="flash bad" role="alert" data-testid="sign-in-refused">${why}</p>
      <p>You are not signed in. <a href="${slackSignInHref(next)}">Try again</a> or go back to <a href="/console/sign-in">the sign-in page</a>.</p>
    </main>`,
  );
  // The sign-in in progress is spent either way: a second try starts afresh.
  sendHtml(res, status, page, { 'set-cookie': cookie(PENDING_COOKIE, '', { secure: deps.secure, maxAgeSeconds: 0 }) });
}

/** GET /console/auth/slack?next=…: to the provider, remembering the sign-in in a sealed cookie. */
export async function startSlackSignIn(deps: SlackSignInDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const next = safeNext(queryOf(req).get('next'));
  let started: Awaited<ReturnType<SlackOidc['start']>>;
  try {
    started = await deps.oidc.start();
  } catch (error) {
    if (!(error instanceof ProviderUnavailable)) throw error;
    deps.logger.warn({ reason: error.reason }, 'Sign in with Slack: the OpenID provider is unavailable');
    return refusedPage(deps, res, 503, next, `Slack's sign-in could not be reached: ${error.reason}. Try again shortly.`);
  }
  const sealed = deps.auth.sealPending({ ...started.pending, next }, deps.clock.now());
  // SameSite=Lax: the provider sends the browser back with a top-level GET, which carries Lax cookies.
  redirect(res, started.url, { 'set-cookie': cookie(PENDING_COOKIE, sealed, { secure: deps.secure, maxAgeSeconds: PENDING_TTL_MS / 1000 }) });
}

function pendingOf(data: Record<string, unknown> | undefined): (PendingSignIn & { next: string }) | undefined {
  if (!data || typeof data['state'] !== 'string' || typeof data['nonce'] !== 'string') return undefined;
  const verifier = data['verifier'];
  return {
    state: data['state'],
    nonce: data['nonce'],
    ...(typeof verifier === 'string' && { verifier }),
    next: safeNext(typeof data['next'] === 'string' ? data['next'] : undefined),
  };
}

/** GET /console/auth/slack/callback?code=…&state=…: checks everything, then a session for the person. */
export async function finishSlackSignIn(deps: SlackSignInDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const query = queryOf(req);
  const now = deps.clock.now();
  const pending = pendingOf(deps.auth.openPending(readCookies(req).get(PENDING_COOKIE), now));
  const next = pending?.next ?? '/console/runs';
  const refuse = (status: number, why: string, reason: string) => {
    deps.logger.info({ reason }, 'Sign in with Slack refused');
    refusedPage(deps, res, status, next, why);
  };
  if (!pending) {
    return refuse(400, 'This sign-in was not started here, or it expired (it must finish within 10 minutes, in the same browser).', 'no sign-in in progress');
  }
  try {
    const person = await deps.oidc.finish(query, pending);
    // Slack signs in people of any workspace where the app is installed or distributed: only ours may open the console.
    if (deps.workspace !== undefined && person.teamId !== deps.workspace) {
      return refuse(
        403,
        `Your Slack account is in another workspace (${person.teamId ?? 'none named'}); this console is for workspace ${deps.workspace} only.`,
        `the id_token's workspace ${person.teamId ?? '(none)'} is not ${deps.workspace}`,
      );
    }
    deps.logger.info({ person: person.personId, team: person.teamId }, 'signed in to the console with Slack');
    signedIn(deps, res, undefined, pending.next, { id: person.personId, name: person.name }, [PENDING_COOKIE]);
  } catch (error) {
    if (error instanceof SignInRefused) return refuse(401, `Slack's answer was refused: ${error.reason}.`, error.reason);
    if (error instanceof ProviderUnavailable) {
      deps.logger.warn({ reason: error.reason }, 'Sign in with Slack: the OpenID provider is unavailable');
      return refusedPage(deps, res, 503, next, `Slack's sign-in could not be reached: ${error.reason}. Try again shortly.`);
    }
    throw error;
  }
}
