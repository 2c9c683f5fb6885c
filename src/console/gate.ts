import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Endpoint, ReadRequestBody } from '../http/server.js';
import { HttpError } from '../http/http-error.js';
import { MY_KEY_PATH } from '../people/key-page.js';
import { SESSION_COOKIE, type ConsoleAuth } from './auth.js';
import type { ConsoleDeps, Viewer } from './deps.js';
import { html } from './html.js';
import { FORM_LIMIT_BYTES, parseForm, readCookies, redirect, sendHtml } from './http-io.js';
import { document } from './layout.js';
import { asksFor, ownRunsOnly } from './own-runs.js';

/** Pages and actions only admins may use (everyone else gets a 403 page): the whole service, not one person's runs. */
export type Who = 'admins' | 'everyone';

/** What a page renders: its HTML, somewhere else to go (a 303), or undefined for "not found". */
export type Render = (viewer: Viewer, req: IncomingMessage) => Promise<ReturnType<typeof html> | { redirect: string } | undefined>;

/** What a form does once its sender is signed in, allowed and has sent the session's CSRF token. */
export type Act = (form: URLSearchParams, viewer: Viewer, res: ServerResponse) => Promise<void>;

/** Who is signed in and what they may see: the checks every console page and form passes first. */
export interface ConsoleGate {
  deps: ConsoleDeps;
  /** Who is signed in: a session that is ours, intact, not expired, and not signed out on any replica. */
  viewerOf(req: IncomingMessage): Promise<Viewer | undefined>;
  /** What a viewer's pages read: everything for admins, only their own runs for everyone else. */
  depsFor(viewer: Viewer): ConsoleDeps;
  /** True when the viewer may see and cancel the run: an admin, or the person who asked for it. */
  mayOpen(viewer: Viewer, runId: string): Promise<boolean>;
  /** A page for signed-in people; anyone else is sent to the sign-in page and back. */
  page(path: string, who: Who, render: Render): Endpoint;
  /**
   * A state-changing form: refused before its body is read without a session (403), then without the
   * session's CSRF token (403, nothing changed). `limitBytes`: its biggest body (default: a few fields).
   */
  action(path: string, who: Who, act: Act, limitBytes?: number): Endpoint;
}

function forbidden(): ReturnType<typeof document> {
  return document(
    'Admins only',
    html`<main>
      <h1>Admins only</h1>
      <p>
        This page is for the console's admins (<code>console.admins</code> in agent-bridge.yml, or the admin token). You can see and cancel the runs
        you asked for, and connect your own key.
      </p>
      <p><a href="/console/runs">Your runs</a> · <a href="${MY_KEY_PATH}">Your key</a></p>
    </main>`,
  );
}

function notFound(): ReturnType<typeof document> {
  return document(
    'Not found',
    html`<main>
      <h1>Not found</h1>
      <p><a href="/console/runs">Runs</a></p>
    </main>`,
  );
}

function refused(): ReturnType<typeof document> {
  return document(
    'Refused',
    html`<main>
      <h1>Refused</h1>
      <p>The form's security token is missing or wrong, so nothing was changed. Go back, reload the page and try again.</p>
    </main>`,
  );
}

/** The console's gate over `auth`'s sessions. */
export function consoleGate(auth: ConsoleAuth, deps: ConsoleDeps): ConsoleGate {
  /** The cookie's session, checked by its signature alone: enough to refuse a form before its body is read, without a database read. */
  const sessionOf = (req: IncomingMessage) => auth.readSession(readCookies(req).get(SESSION_COOKIE), deps.clock.now());
  const viewerOf = async (req: IncomingMessage): Promise<Viewer | undefined> => {
    const session = sessionOf(req);
    if (!session || (await deps.store.consoleSessions.isEnded(session.sid))) return undefined;
    return { sid: session.sid, csrf: auth.csrfToken(session.sid), admin: session.admin, ...(session.person && { person: session.person }) };
  };
  return {
    deps,
    viewerOf,
    depsFor: (viewer) => (viewer.admin || !viewer.person ? deps : ownRunsOnly(deps, viewer.person.id)),
    mayOpen: async (viewer, runId) => viewer.admin || (viewer.person !== undefined && (await asksFor(deps, runId, viewer.person.id))),
    page: (path, who, render) => ({
      method: 'GET',
      path,
      async handle(req, res) {
        const viewer = await viewerOf(req);
        if (!viewer) return redirect(res, `/console/sign-in?next=${encodeURIComponent(req.url ?? path)}`);
        if (who === 'admins' && !viewer.admin) return sendHtml(res, 403, forbidden());
        const rendered = await render(viewer, req);
        if (!rendered) return sendHtml(res, 404, notFound());
        if ('redirect' in rendered) return redirect(res, rendered.redirect);
        sendHtml(res, 200, rendered);
      },
    }),
    action: (path, who, act, limitBytes = FORM_LIMIT_BYTES) => ({
      method: 'POST',
      path,
      body: {
        limitBytes,
        refuse: (req) => (sessionOf(req) ? undefined : new HttpError(403, 'no_session', 'sign in to the console first')),
      },
      async handle(req, res, readBody: ReadRequestBody) {
        const viewer = await viewerOf(req);
        if (!viewer) throw new HttpError(403, 'no_session', 'sign in to the console first');
        if (who === 'admins' && !viewer.admin) return sendHtml(res, 403, forbidden());
        const form = parseForm(await readBody());
        if (!auth.checkCsrf(viewer.sid, form.get('csrf') ?? undefined)) return sendHtml(res, 403, refused());
        await act(form, viewer, res);
      },
    }),
  };
}
