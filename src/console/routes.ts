import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpRoute, ReadRequestBody } from '../http/server.js';
import { HttpError } from '../http/http-error.js';
import { readPause, writePause } from '../core/schedules/schedule-pause.js';
import { CONSOLE_CSS, CONSOLE_JS } from './assets.js';
import { AttemptLimiter } from './attempt-limiter.js';
import { ConsoleAuth, SESSION_COOKIE, SESSION_TTL_MS } from './auth.js';
import type { ConsoleAccess } from './console-config.js';
import type { ConsoleDeps, Viewer } from './deps.js';
import { html } from './html.js';
import { cookie, FORM_LIMIT_BYTES, parseForm, queryOf, readCookies, redirect, sendAsset, sendHtml } from './http-io.js';
import { document } from './layout.js';
import { attentionPage } from './pages/attention-page.js';
import { healthPage } from './pages/health-page.js';
import { keysPage } from './pages/keys-page.js';
import { LINK_FLASH, linkPeople, unlinkPeople } from './people-links.js';
import { runPage } from './pages/run-page.js';
import { runsPage } from './pages/runs-page.js';
import { schedulesPage } from './pages/schedules-page.js';
import { SLACK_USER_ID } from '../config/validators.js';
import { MY_KEY_PATH } from '../people/key-page.js';
import { myKeyPage } from './pages/my-key-page.js';
import { asksFor, ownRunsOnly } from './own-runs.js';
import { showSignIn, submitSignIn, type SignInDeps } from './sign-in.js';
import { finishSlackSignIn, startSlackSignIn } from './slack-sign-in.js';
import { SlackOidc } from './slack-oidc.js';

/** What an action did, shown once on the page it returns to; codes, so no text travels in the URL. */
const FLASH: Record<string, string> = {
  'cancel-requested': 'Cancel requested: the run stops within seconds, and the people who asked are told.',
  'delivery-retried': 'The message will be sent again now.',
  'delivery-dismissed': 'Dismissed.',
  'trigger-retried': 'The request will be tried again now.',
  'trigger-dismissed': 'Dismissed.',
  'not-failed': 'Nothing to do: it is no longer failed.',
  fired: 'Fired: the run starts within seconds.',
  'fire-skipped': 'Not fired: see the reason among the recent fires.',
  'fire-taken': 'That slot was already fired by another process.',
  paused: 'Paused: its slots are skipped until resumed.',
  resumed: 'Resumed.',
  'already-paused': 'It was already paused.',
  'not-paused': 'It was not paused.',
  'key-connected': 'Connected: the run API accepted the key, and it is stored sealed.',
  'key-refused': 'Not connected: the run API refused this key (401/403). Check that it is a valid personal API key.',
  'key-unavailable': 'Not connected: the run API could not be asked right now. Nothing was stored; try again shortly.',
  'key-bad-person': 'Not connected: that is not a Slack user ID (such as U0123ABCD).',
  'key-bad-key': 'Not connected: the key is empty, longer than 512 characters, or contains spaces.',
  'key-removed': 'Removed.',
  'key-absent': 'Nothing to remove: no key was connected for that person.',
  'keys-off': 'Personal keys are off: AGENT_BRIDGE_SECRET is not set.',
  ...LINK_FLASH,
  'my-key-removed': 'Disconnected: runs you ask for now use the service’s key (revoke the key in the run API too if you no longer need it).',
  'my-key-absent': 'Nothing to disconnect: no key was connected.',
  'no-person': 'Sign in with Slack to connect your own key.',
};

/** Pages and actions only admins may use (everyone else gets a 403 page): the whole service, not one person's runs. */
type Who = 'admins' | 'everyone';

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

/**
 * The console's routes (`/console` and everything under it), for the one HTTP server. `signingKey` is
 * what `consoleSigningKey` gave for `access`.
 */
export function consoleRoutes(
  access: Exclude<ConsoleAccess, { mode: 'off' }>,
  deps: ConsoleDeps,
  signingKey: Buffer,
): { routes: HttpRoute[]; oneTimePath: string | undefined } {
  const auth = new ConsoleAuth(access, signingKey);
  const signIn: SignInDeps = {
    auth,
    limiter: new AttemptLimiter(),
    clock: deps.clock,
    secure: access.secureCookies,
    tokenMode: access.mode === 'token',
    oneTimeLink: access.mode === 'one-time link',
    slack: access.slack !== undefined,
  };
  const slackSignIn = access.slack && {
    ...signIn,
    oidc: new SlackOidc(access.slack),
    logger: deps.logger,
    ...(deps.workspace && { workspace: deps.workspace }),
  };
  /** The cookie's session, checked by its signature alone: enough to refuse a form before its body is read, without a database read. */
  const sessionOf = (req: IncomingMessage) => auth.readSession(readCookies(req).get(SESSION_COOKIE), deps.clock.now());
  /** Who is signed in: a session that is ours, intact, not expired, and not signed out on any replica. */
  const viewerOf = async (req: IncomingMessage): Promise<Viewer | undefined> => {
    const session = sessionOf(req);
    if (!session || (await deps.store.consoleSessions.isEnded(session.sid))) return undefined;
    return { sid: session.sid, csrf: auth.csrfToken(session.sid), admin: session.admin, ...(session.person && { person: session.person }) };
  };
  /** What a viewer's pages read: everything for admins, only their own runs for everyone else. */
  const depsFor = (viewer: Viewer): ConsoleDeps => (viewer.admin || !viewer.person ? deps : ownRunsOnly(deps, viewer.person.id));
  /** True when the viewer may see and cancel the run: an admin, or the person who asked for it. */
  const mayOpen = async (viewer: Viewer, runId: string) => viewer.admin || (viewer.person !== undefined && (await asksFor(deps, runId, viewer.person.id)));
  const flashOf = (req: IncomingMessage) => FLASH[queryOf(req).get('flash') ?? ''];
  /** After a key is removed, Slack republishes the person's Home tab; the key is gone either way, so a failure is only logged. */
  const keyRemoved = async (person: string) => {
    try {
      await deps.keyRemoved?.(person);
    } catch (error) {
      deps.logger.warn({ person, err: error }, 'could not republish the Home tab after a key was removed');
    }
  };

  /** A page for signed-in people; anyone else is sent to the sign-in page and back. */
  const pageRoute = (path: string, who: Who, render: (viewer: Viewer, req: IncomingMessage) => Promise<ReturnType<typeof html> | undefined>): HttpRoute => ({
    method: 'GET',
    path,
    async handle(req, res) {
      const viewer = await viewerOf(req);
      if (!viewer) return redirect(res, `/console/sign-in?next=${encodeURIComponent(req.url ?? path)}`);
      if (who === 'admins' && !viewer.admin) return sendHtml(res, 403, forbidden());
      const rendered = await render(viewer, req);
      if (!rendered)
        return sendHtml(
          res,
          404,
          document(
            'Not found',
            html`<main>
              <h1>Not found</h1>
              <p><a href="/console/runs">Runs</a></p>
            </main>`,
          ),
        );
      sendHtml(res, 200, rendered);
    },
  });

  /**
   * A state-changing form: refused before its body is read without a session (403), then without the
   * session's CSRF token (403, nothing changed).
   */
  const actionRoute = (path: string, who: Who, act: (form: URLSearchParams, viewer: Viewer, res: ServerResponse) => Promise<void>): HttpRoute => ({
    method: 'POST',
    path,
    body: {
      limitBytes: FORM_LIMIT_BYTES,
      refuse: (req) => (sessionOf(req) ? undefined : new HttpError(403, 'no_session', 'sign in to the console first')),
    },
    async handle(req, res, readBody: ReadRequestBody) {
      const viewer = await viewerOf(req);
      if (!viewer) throw new HttpError(403, 'no_session', 'sign in to the console first');
      if (who === 'admins' && !viewer.admin) return sendHtml(res, 403, forbidden());
      const form = parseForm(await readBody());
      if (!auth.checkCsrf(viewer.sid, form.get('csrf') ?? undefined)) {
        return sendHtml(
          res,
          403,
          document(
            'Refused',
            html`<main>
              <h1>Refused</h1>
              <p>The form's security token is missing or wrong, so nothing was changed. Go back, reload the page and try again.</p>
            </main>`,
          ),
        );
      }
      await act(form, viewer, res);
    },
  });

  const back = (form: URLSearchParams, fallback: string) => {
    const value = form.get('back');
    return value && /^\/console\/[A-Za-z0-9/_?=&%.~+-]*$/.test(value) ? value : fallback;
  };
  const withFlash = (path: string, flash: string) => `${path}${path.includes('?') ? '&' : '?'}flash=${flash}`;
  const idOf = (form: URLSearchParams) => {
    const id = Number(form.get('id'));
    if (!Number.isSafeInteger(id) || id <= 0) throw new HttpError(400, 'bad_id', 'id must be a positive whole number');
    return id;
  };
  const scheduleOf = (form: URLSearchParams) => {
    const schedule = deps.schedules.find((candidate) => candidate.name === form.get('name'));
    if (!schedule) throw new HttpError(404, 'unknown_schedule', 'no such schedule is configured');
    return schedule;
  };

  /** Checks `raw` with one run API call and stores it sealed for `person`; the page at `back` says what happened. */
  const connectKey = async (person: string, raw: string | null, back: string, res: ServerResponse) => {
    if (!deps.keys) return redirect(res, withFlash(back, 'keys-off'));
    const key = (raw ?? '').trim();
    if (key === '' || key.length > 512 || /\s/.test(key)) return redirect(res, withFlash(back, 'key-bad-key'));
    const checked = await deps.keys.check(key);
    if (checked !== 'accepted') return redirect(res, withFlash(back, `key-${checked}`));
    await deps.keys.people.connect(person, key, deps.clock.now());
    deps.logger.info({ person }, 'personal API key connected in the console');
    redirect(res, withFlash(back, 'key-connected'));
  };

  const routes: HttpRoute[] = [
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
    ...(slackSignIn
      ? [
          {
            method: 'GET' as const,
            path: '/console/auth/slack',
            handle: (req: IncomingMessage, res: ServerResponse) => startSlackSignIn(slackSignIn, req, res),
          },
          {
            method: 'GET' as const,
            path: '/console/auth/slack/callback',
            handle: (req: IncomingMessage, res: ServerResponse) => finishSlackSignIn(slackSignIn, req, res),
          },
        ]
      : []),
    actionRoute('/console/sign-out', 'everyone', async (_form, viewer, res) => {
      // Ended on the server, for every replica: a copy of the cookie (and its CSRF token) stops working
      // now. Kept until the latest the session could expire, after which the cookie fails by itself.
      const now = deps.clock.now();
      await deps.store.consoleSessions.end(viewer.sid, now + SESSION_TTL_MS, now);
      redirect(res, '/console/sign-in', { 'set-cookie': cookie(SESSION_COOKIE, '', { secure: access.secureCookies, maxAgeSeconds: 0 }) });
    }),
    pageRoute('/console/runs', 'everyone', (viewer, req) => runsPage(depsFor(viewer), viewer, queryOf(req), flashOf(req))),
    pageRoute('/console/run', 'everyone', async (viewer, req) => {
      const id = queryOf(req).get('id') ?? '';
      // Someone else's run is "not found" to a person who is not an admin: its existence is not theirs to learn.
      return (await mayOpen(viewer, id)) ? runPage(depsFor(viewer), viewer, id, flashOf(req)) : undefined;
    }),
    pageRoute('/console/attention', 'admins', (viewer, req) => attentionPage(deps, viewer, flashOf(req))),
    pageRoute('/console/schedules', 'admins', (viewer, req) => schedulesPage(deps, viewer, flashOf(req))),
    pageRoute('/console/health', 'admins', (viewer) => healthPage(deps, viewer)),
    pageRoute('/console/keys', 'admins', (viewer, req) => keysPage(deps, viewer, flashOf(req))),
    pageRoute(MY_KEY_PATH, 'everyone', (viewer, req) => myKeyPage(deps, viewer, flashOf(req))),
    actionRoute(`${MY_KEY_PATH}/connect`, 'everyone', async (form, viewer, res) => {
      if (!viewer.person) return redirect(res, withFlash(MY_KEY_PATH, 'no-person'));
      await connectKey(viewer.person.id, form.get('key'), MY_KEY_PATH, res);
    }),
    actionRoute(`${MY_KEY_PATH}/disconnect`, 'everyone', async (_form, viewer, res) => {
      if (!deps.keys) return redirect(res, withFlash(MY_KEY_PATH, 'keys-off'));
      if (!viewer.person) return redirect(res, withFlash(MY_KEY_PATH, 'no-person'));
      const removed = await deps.keys.people.disconnect(viewer.person.id);
      if (removed) {
        deps.logger.info({ person: viewer.person.id }, 'personal API key disconnected in the console');
        await keyRemoved(viewer.person.id);
      }
      redirect(res, withFlash(MY_KEY_PATH, removed ? 'my-key-removed' : 'my-key-absent'));
    }),
    actionRoute('/console/keys/connect', 'admins', async (form, _viewer, res) => {
      const person = (form.get('person') ?? '').trim();
      if (deps.keys && !SLACK_USER_ID.test(person)) return redirect(res, withFlash('/console/keys', 'key-bad-person'));
      await connectKey(person, form.get('key'), '/console/keys', res);
    }),
    actionRoute('/console/keys/link', 'admins', async (form, _viewer, res) => redirect(res, withFlash('/console/keys', await linkPeople(deps, form)))),
    actionRoute('/console/keys/unlink', 'admins', async (form, _viewer, res) => redirect(res, withFlash('/console/keys', await unlinkPeople(deps, form)))),
    actionRoute('/console/keys/remove', 'admins', async (form, _viewer, res) => {
      if (!deps.keys) return redirect(res, withFlash('/console/keys', 'keys-off'));
      const person = form.get('person') ?? '';
      const removed = await deps.keys.people.disconnect(person);
      if (removed) await keyRemoved(person);
      redirect(res, withFlash('/console/keys', removed ? 'key-removed' : 'key-absent'));
    }),
    actionRoute('/console/run/cancel', 'everyone', async (form, viewer, res) => {
      const run = await deps.store.trackedRuns.get(form.get('id') ?? '');
      if (!run || !(await mayOpen(viewer, run.runId))) throw new HttpError(404, 'unknown_run', 'no such run');
      const now = deps.clock.now();
      await deps.intake.submit({
        kind: 'cancel',
        // One cancel per session, run and second: a double click stores one trigger.
        key: `console:cancel:${run.runId}:${viewer.sid}:${Math.floor(now / 1000)}`,
        source: 'console',
        anchor: run.anchor,
        // A person signed in with Slack cancels as themselves (their key, their name in the thread).
        payload: {
          runId: run.runId,
          requester: viewer.person
            ? { platform: 'slack', id: viewer.person.id, name: viewer.person.name }
            : { platform: 'console', id: 'console-admin', name: 'the console admin' },
        },
      });
      redirect(res, withFlash(`/console/run?id=${encodeURIComponent(run.runId)}`, 'cancel-requested'));
    }),
    actionRoute('/console/delivery/retry', 'admins', async (form, _viewer, res) => {
      const done = await deps.store.operator.retryDelivery(idOf(form), deps.clock.now());
      if (done) deps.wakeOutbox();
      redirect(res, withFlash(back(form, '/console/attention'), done ? 'delivery-retried' : 'not-failed'));
    }),
    actionRoute('/console/delivery/dismiss', 'admins', async (form, _viewer, res) => {
      const done = await deps.store.operator.dismissDelivery(idOf(form), deps.clock.now());
      redirect(res, withFlash(back(form, '/console/attention'), done ? 'delivery-dismissed' : 'not-failed'));
    }),
    actionRoute('/console/trigger/retry', 'admins', async (form, _viewer, res) => {
      const done = await deps.store.operator.retryTrigger(idOf(form), deps.clock.now());
      if (done) deps.wakeIntake();
      redirect(res, withFlash(back(form, '/console/attention'), done ? 'trigger-retried' : 'not-failed'));
    }),
    actionRoute('/console/trigger/dismiss', 'admins', async (form, _viewer, res) => {
      const done = await deps.store.operator.dismissTrigger(idOf(form), deps.clock.now());
      redirect(res, withFlash(back(form, '/console/attention'), done ? 'trigger-dismissed' : 'not-failed'));
    }),
    actionRoute('/console/schedule/trigger', 'admins', async (form, _viewer, res) => {
      const outcome = await deps.triggerSchedule(scheduleOf(form).name);
      redirect(res, withFlash('/console/schedules', outcome.status === 'submitted' ? 'fired' : outcome.status === 'skipped' ? 'fire-skipped' : 'fire-taken'));
    }),
    actionRoute('/console/schedule/pause', 'admins', async (form, _viewer, res) => {
      const { name } = scheduleOf(form);
      if ((await readPause(deps.store.settings, name))?.paused) return redirect(res, withFlash('/console/schedules', 'already-paused'));
      await writePause(deps.store.settings, name, { paused: true, at: deps.clock.now(), reason: 'paused in the web console' });
      redirect(res, withFlash('/console/schedules', 'paused'));
    }),
    actionRoute('/console/schedule/resume', 'admins', async (form, _viewer, res) => {
      const { name } = scheduleOf(form);
      if (!(await readPause(deps.store.settings, name))?.paused) return redirect(res, withFlash('/console/schedules', 'not-paused'));
      await writePause(deps.store.settings, name, { paused: false, at: deps.clock.now() });
      redirect(res, withFlash('/console/schedules', 'resumed'));
    }),
  ];
  return { routes, oneTimePath: auth.oneTimePath() };
}
