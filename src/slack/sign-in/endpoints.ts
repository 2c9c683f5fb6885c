/**
 * The two routes of Sign in with Slack: `GET /console/auth/slack` sends the browser to the provider
 * with a fresh state, nonce and PKCE challenge (kept by the console in a sealed short-lived cookie, so
 * any replica can finish the sign-in), and `GET /console/auth/slack/callback` finishes it. Every
 * refusal is a page that says why, and starts no session. Neither route counts toward the admin
 * token's rate limit: a refused callback guesses nothing (an id_token cannot be forged without the
 * provider's key), and a flood of wrong tokens must not lock people out of Slack's sign-in.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ProviderUnavailable, SignInRefused, type SignInRouteDeps } from '../../surface-kit/sign-in-provider.js';
import type { PendingSignIn, SlackOidc } from './oidc.js';

/** What the routes need: the console's side of a sign-in, and the OpenID client (loaded at the first sign-in). */
export interface SlackSignInDeps extends SignInRouteDeps {
  oidc(): Promise<Pick<SlackOidc, 'start' | 'finish'>>;
}

function unavailable(deps: SlackSignInDeps, res: ServerResponse, next: string, error: ProviderUnavailable): void {
  deps.logger.warn({ reason: error.reason }, 'Sign in with Slack: the OpenID provider is unavailable');
  deps.refused(res, { status: 503, next, why: `Slack's sign-in could not be reached: ${error.reason}. Try again shortly.` });
}

/** GET /console/auth/slack?next=…: to the provider, remembering the sign-in in a sealed cookie. */
export async function startSlackSignIn(deps: SlackSignInDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const next = deps.nextOf(req);
  let started: Awaited<ReturnType<SlackOidc['start']>>;
  try {
    started = await (await deps.oidc()).start();
  } catch (error) {
    if (!(error instanceof ProviderUnavailable)) throw error;
    return unavailable(deps, res, next, error);
  }
  deps.toProvider(res, started.url, { ...started.pending }, next);
}

function pendingOf(data: Readonly<Record<string, unknown>>): PendingSignIn | undefined {
  if (typeof data['state'] !== 'string' || typeof data['nonce'] !== 'string') return undefined;
  const verifier = data['verifier'];
  return { state: data['state'], nonce: data['nonce'], ...(typeof verifier === 'string' && { verifier }) };
}

/** GET /console/auth/slack/callback?code=…&state=…: checks everything, then a session for the person. */
export async function finishSlackSignIn(deps: SlackSignInDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const kept = deps.pendingOf(req);
  const pending = kept && pendingOf(kept.pending);
  const next = kept?.next ?? '/console/runs';
  if (!pending) {
    return deps.refused(res, {
      status: 400,
      next,
      why: 'This sign-in was not started here, or it expired (it must finish within 10 minutes, in the same browser).',
      reason: 'no sign-in in progress',
    });
  }
  try {
    const url = new URL(req.url ?? '/', 'http://callback');
    const person = await (await deps.oidc()).finish(url.searchParams, pending);
    deps.signedIn(res, next, { personId: person.personId, name: person.name, workspace: person.teamId });
  } catch (error) {
    if (error instanceof SignInRefused)
      return deps.refused(res, { status: 401, next, why: `Slack's answer was refused: ${error.reason}.`, reason: error.reason });
    if (error instanceof ProviderUnavailable) return unavailable(deps, res, next, error);
    throw error;
  }
}
