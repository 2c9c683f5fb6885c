/**
 * The console's side of a sign-in provider's routes (`surface-kit/sign-in-provider.ts`): each provider
 * that is on gets `/console/auth/<id>` and `/console/auth/<id>/callback`, and the pieces its flow needs
 * — the sealed cookie that carries a sign-in in progress, the session it ends in, the page that says
 * why it was refused. A person the platform places in another workspace than the one the provider's
 * surface serves is refused here, for every provider alike.
 */
import type { ServerResponse } from 'node:http';
import type { Logger } from '../core/ports/logger.js';
import type { Endpoint } from '../http/server.js';
import type { SignedInIdentity, SignInRouteDeps } from '../surface-kit/sign-in-provider.js';
import { PENDING_TTL_MS } from './auth.js';
import { signInPaths, type ConsoleProvider } from './console-config.js';
import { html } from './html.js';
import { cookie, queryOf, readCookies, redirect, sendHtml } from './http-io.js';
import { document } from './layout.js';
import { providerSignInHref, safeNext, signedIn, type SignInDeps } from './sign-in.js';

/** The cookie that carries a sign-in in progress (state, nonce, PKCE verifier, where to go next). */
export const PENDING_COOKIE = 'agent_bridge_console_oidc';

/** What the providers' routes share: the sign-in page's deps, the log, and the workspace a surface serves. */
export interface ProviderRouteDeps extends SignInDeps {
  logger: Logger;
  /** The workspace the people of `surface` belong to, read at its start; absent: not checked. */
  workspace?: { surface: string; id: string };
}

/** What `provider`'s routes are given: the console's sealed state, sessions and pages. */
function routeDeps(deps: ProviderRouteDeps, { surface, provider }: ConsoleProvider): SignInRouteDeps {
  const refused: SignInRouteDeps['refused'] = (res, { status, next, why, reason }) => {
    if (reason !== undefined) deps.logger.info({ reason }, `${provider.name} refused`);
    const page = document(
      `${provider.name} failed`,
      html`<main class="sign-in">
        <h1>${provider.name} failed</h1>
        <p class="flash bad" role="alert" data-testid="sign-in-refused">${why}</p>
        <p>You are not signed in. <a href="${providerSignInHref(provider, next)}">Try again</a> or go back to <a href="/console/sign-in">the sign-in page</a>.</p>
      </main>`,
    );
    // The sign-in in progress is spent either way: a second try starts afresh.
    sendHtml(res, status, page, { 'set-cookie': cookie(PENDING_COOKIE, '', { secure: deps.secure, maxAgeSeconds: 0 }) });
  };
  const expected = deps.workspace?.surface === surface ? deps.workspace.id : undefined;
  return {
    logger: deps.logger,
    nextOf: (req) => safeNext(queryOf(req).get('next')),
    toProvider(res, url, pending, next) {
      const sealed = deps.auth.sealPending({ ...pending, next }, deps.clock.now());
      // SameSite=Lax: the provider sends the browser back with a top-level GET, which carries Lax cookies.
      redirect(res, url, { 'set-cookie': cookie(PENDING_COOKIE, sealed, { secure: deps.secure, maxAgeSeconds: PENDING_TTL_MS / 1000 }) });
    },
    pendingOf(req) {
      const data = deps.auth.openPending(readCookies(req).get(PENDING_COOKIE), deps.clock.now());
      if (!data) return undefined;
      const next = data['next'];
      return { pending: data, next: safeNext(typeof next === 'string' ? next : undefined) };
    },
    signedIn(res: ServerResponse, next: string, person: SignedInIdentity) {
      // A platform signs in people of any workspace where the app is installed or distributed: only the one served may open the console.
      if (expected !== undefined && person.workspace !== expected) {
        return refused(res, {
          status: 403,
          next,
          why: `Your ${provider.platform} account is in another workspace (${person.workspace ?? 'none named'}); this console is for workspace ${expected} only.`,
          reason: `the account's workspace ${person.workspace ?? '(none)'} is not ${expected}`,
        });
      }
      deps.logger.info({ person: person.personId, workspace: person.workspace }, `signed in to the console with ${provider.platform}`);
      signedIn(deps, res, undefined, next, { id: person.personId, name: person.name }, [PENDING_COOKIE]);
    },
    refused,
  };
}

/**
 * The routes of every provider that is on. Neither counts toward the admin token's rate limit: a
 * refused callback guesses nothing, and a flood of wrong tokens must not lock people out of a provider.
 */
export function providerEndpoints(deps: ProviderRouteDeps, providers: readonly ConsoleProvider[]): Endpoint[] {
  return providers.flatMap((entry) => {
    const { start, callback } = entry.provider.routes(routeDeps(deps, entry));
    const paths = signInPaths(entry.provider);
    return [
      { method: 'GET' as const, path: paths.start, handle: start },
      { method: 'GET' as const, path: paths.callback, handle: callback },
    ];
  });
}
