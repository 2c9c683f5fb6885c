/**
 * The two routes of a sign-in over OpenID Connect (`openid-sign-in.ts`): `GET /console/auth/<id>`
 * sends the browser to the provider with a fresh state, nonce and PKCE challenge (kept by the console
 * in a sealed short-lived cookie, so any replica can finish the sign-in), and
 * `GET /console/auth/<id>/callback` finishes it. Every refusal is a page that says why, and starts no
 * session. Neither route counts toward the admin token's rate limit: a refused callback guesses
 * nothing (an id_token cannot be forged without the provider's key), and a flood of wrong tokens must
 * not lock people out of a provider's sign-in.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { IdTokenClaims, OpenIdSignIn, PendingSignIn } from './openid-sign-in.js';
import { ProviderUnavailable, SignInRefused, type SignedInIdentity, type SignInKind, type SignInRoute, type SignInRouteDeps } from './sign-in-provider.js';

/** A person the provider signed in whom this console does not admit (another organisation), and why in words. */
export interface NotAdmitted {
  notAdmitted: { why: string; reason: string };
}

/** What a provider over OpenID Connect brings to its routes. */
export interface OpenIdProviderParts {
  /** Its words: "Sign in with Slack", "Slack". */
  kind: SignInKind;
  /** The OpenID client, loaded at the first sign-in (and `openid-client` with it). */
  client(): Promise<Pick<OpenIdSignIn, 'start' | 'finish'>>;
  /**
   * Who the checked id_token's claims name, or why this console does not admit them (a 403 page);
   * throws SignInRefused when they name nobody this provider signs in.
   */
  identify(claims: IdTokenClaims): SignedInIdentity | NotAdmitted;
}

/** The sign-in in progress read back from what the start route kept, or undefined when it is not one. */
function pendingSignInOf(data: Readonly<Record<string, unknown>>): PendingSignIn | undefined {
  if (typeof data['state'] !== 'string' || typeof data['nonce'] !== 'string') return undefined;
  const verifier = data['verifier'];
  return { state: data['state'], nonce: data['nonce'], ...(typeof verifier === 'string' && { verifier }) };
}

function unavailable(parts: OpenIdProviderParts, deps: SignInRouteDeps, res: ServerResponse, next: string, error: ProviderUnavailable): void {
  deps.logger.warn({ reason: error.reason }, `${parts.kind.name}: the OpenID provider is unavailable`);
  deps.refused(res, { status: 503, next, why: `${parts.kind.platform}'s sign-in could not be reached: ${error.reason}. Try again shortly.` });
}

/** GET /console/auth/<id>?next=…: to the provider, remembering the sign-in in a sealed cookie. */
async function start(parts: OpenIdProviderParts, deps: SignInRouteDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const next = deps.nextOf(req);
  let started: Awaited<ReturnType<OpenIdSignIn['start']>>;
  try {
    started = await (await parts.client()).start();
  } catch (error) {
    if (!(error instanceof ProviderUnavailable)) throw error;
    return unavailable(parts, deps, res, next, error);
  }
  deps.toProvider(res, started.url, { ...started.pending }, next);
}

/** GET /console/auth/<id>/callback?code=…&state=…: checks everything, then a session for the person. */
async function callback(parts: OpenIdProviderParts, deps: SignInRouteDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const kept = deps.pendingOf(req);
  const pending = kept && pendingSignInOf(kept.pending);
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
    const person = parts.identify(await (await parts.client()).finish(url.searchParams, pending));
    if ('notAdmitted' in person) return deps.refused(res, { status: 403, next, ...person.notAdmitted });
    deps.signedIn(res, next, person);
  } catch (error) {
    if (error instanceof SignInRefused)
      return deps.refused(res, { status: 401, next, why: `${parts.kind.platform}'s answer was refused: ${error.reason}.`, reason: error.reason });
    if (error instanceof ProviderUnavailable) return unavailable(parts, deps, res, next, error);
    throw error;
  }
}

/** The provider's routes, as `SignInProvider.routes` answers them. */
export function openIdRoutes(parts: OpenIdProviderParts, deps: SignInRouteDeps): { start: SignInRoute; callback: SignInRoute } {
  return { start: (req, res) => start(parts, deps, req, res), callback: (req, res) => callback(parts, deps, req, res) };
}
