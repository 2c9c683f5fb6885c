import type { Endpoint } from '../http/server.js';
import { MY_KEY_PATH } from '../people/key-page.js';
import { CONSOLE_CSS, CONSOLE_JS } from './assets.js';
import { AttemptLimiter } from './attempt-limiter.js';
import { ConsoleAuth, SESSION_COOKIE, SESSION_TTL_MS } from './auth.js';
import type { ConsoleAccess } from './console-config.js';
import type { ConsoleDeps } from './deps.js';
import { flashOf } from './flash.js';
import { consoleGate, type ConsoleGate } from './gate.js';
import { cookie, FORM_LIMIT_BYTES, queryOf, redirect, sendAsset } from './http-io.js';
import { keyEndpoints } from './key-endpoints.js';
import { attentionPage } from './pages/attention-page.js';
import { auditPage } from './pages/audit-page.js';
import { healthPage } from './pages/health-page.js';
import { keysPage } from './pages/keys-page.js';
import { myKeyPage } from './pages/my-key-page.js';
import { runPage } from './pages/run-page.js';
import { runsPage } from './pages/runs-page.js';
import { schedulesPage } from './pages/schedules-page.js';
import { usagePage } from './pages/usage-page.js';
import { newRunEndpoints } from './new-run-endpoints.js';
import { runEndpoints } from './run-endpoints.js';
import { scheduleEndpoints } from './schedule-endpoints.js';
import { providerEndpoints } from './provider-routes.js';
import { showSignIn, submitSignIn, type SignInDeps } from './sign-in.js';

type SignedInAccess = Exclude<ConsoleAccess, { mode: 'off' }>;

/** The assets and the ways in and out: the sign-in form, each sign-in provider that is on, sign-out. */
function signInEndpoints(access: SignedInAccess, auth: ConsoleAuth, gate: ConsoleGate): Endpoint[] {
  const { deps } = gate;
  const signIn: SignInDeps = {
    auth,
    limiter: new AttemptLimiter(),
    clock: deps.clock,
    secure: access.secureCookies,
    tokenMode: access.mode === 'token',
    oneTimeLink: access.mode === 'one-time link',
    providers: access.providers.map(({ provider }) => provider),
  };
  const providers = { ...signIn, logger: deps.logger, ...(deps.workspace && { workspace: deps.workspace }) };
  return [
    { method: 'GET', path: '/console', handle: (_req, res) => redirect(res, '/console/runs') },
    { method: 'GET', path: '/console/assets/console.css', handle: (_req, res) => sendAsset(res, 'text/css; charset=utf-8', CONSOLE_CSS) },
    { method: 'GET', path: '/console/assets/console.js', handle: (_req, res) => sendAsset(res, 'text/javascript; charset=utf-8', CONSOLE_JS) },
    { method: 'GET', path: '/console/sign-in', handle: (req, res) => showSignIn(signIn, req, res) },
    {
      method: 'POST',
      path: '/console/sign-in',
      body: { limitBytes: FORM_LIMIT_BYTES },
      handle: (req, res, readBody) => submitSignIn(signIn, req, res, readBody),
    },
    ...providerEndpoints(providers, access.providers),
    gate.action('/console/sign-out', 'everyone', async (_form, viewer, res) => {
      // Ended on the server, for every replica: a copy of the cookie (and its CSRF token) stops working
      // now. Kept until the latest the session could expire, after which the cookie fails by itself.
      const now = deps.clock.now();
      await deps.store.consoleSessions.end(viewer.sid, now + SESSION_TTL_MS, now);
      redirect(res, '/console/sign-in', { 'set-cookie': cookie(SESSION_COOKIE, '', { secure: access.secureCookies, maxAgeSeconds: 0 }) });
    }),
  ];
}

/** The console's pages: runs and a run for everyone (their own runs only, unless admin), the rest for admins. */
function pageEndpoints(gate: ConsoleGate): Endpoint[] {
  const { deps } = gate;
  return [
    gate.page('/console/runs', 'everyone', (viewer, req) => runsPage(gate.depsFor(viewer), viewer, queryOf(req), flashOf(req))),
    gate.page('/console/run', 'everyone', async (viewer, req) => {
      const id = queryOf(req).get('id') ?? '';
      // Someone else's run is "not found" to a person who is not an admin: its existence is not theirs to learn.
      return (await gate.mayOpen(viewer, id)) ? runPage(gate.depsFor(viewer), viewer, id, flashOf(req)) : undefined;
    }),
    gate.page('/console/attention', 'admins', (viewer, req) => attentionPage(deps, viewer, flashOf(req))),
    gate.page('/console/schedules', 'admins', (viewer, req) => schedulesPage(deps, viewer, flashOf(req))),
    gate.page('/console/usage', 'admins', (viewer, req) => usagePage(deps, viewer, queryOf(req))),
    gate.page('/console/health', 'admins', (viewer) => healthPage(deps, viewer)),
    gate.page('/console/keys', 'admins', (viewer, req) => keysPage(deps, viewer, flashOf(req))),
    gate.page('/console/audit', 'admins', (viewer, req) => auditPage(deps, viewer, queryOf(req))),
    gate.page(MY_KEY_PATH, 'everyone', (viewer, req) => myKeyPage(deps, viewer, flashOf(req))),
  ];
}

/**
 * The console's routes (`/console` and everything under it), for the one HTTP server. `signingKey` is
 * what `consoleSigningKey` gave for `access`.
 */
export function consoleEndpoints(access: SignedInAccess, deps: ConsoleDeps, signingKey: Buffer): { routes: Endpoint[]; oneTimePath: string | undefined } {
  const auth = new ConsoleAuth(access, signingKey);
  const gate = consoleGate(auth, deps);
  const routes = [
    ...signInEndpoints(access, auth, gate),
    ...pageEndpoints(gate),
    ...keyEndpoints(gate),
    ...runEndpoints(gate),
    ...newRunEndpoints(gate),
    ...scheduleEndpoints(gate),
  ];
  return { routes, oneTimePath: auth.oneTimePath() };
}
