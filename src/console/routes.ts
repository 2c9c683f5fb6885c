import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpRoute, ReadRequestBody } from '../http/server.js';
import { HttpError } from '../http/http-error.js';
import { readPause, writePause } from '../core/schedules/schedule-pause.js';
import { CONSOLE_CSS, CONSOLE_JS } from './assets.js';
import { AttemptLimiter } from './attempt-limiter.js';
import { ConsoleAuth, SESSION_COOKIE } from './auth.js';
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
import { showSignIn, submitSignIn, type SignInDeps } from './sign-in.js';

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
};

/** The console's routes (`/console` and everything under it), for the one HTTP server. */
export function consoleRoutes(access: Exclude<ConsoleAccess, { mode: 'off' }>, deps: ConsoleDeps): { routes: HttpRoute[]; oneTimePath: string | undefined } {
  const auth = new ConsoleAuth(access);
  const signIn: SignInDeps = { auth, limiter: new AttemptLimiter(), clock: deps.clock, secure: access.secureCookies, tokenMode: access.mode === 'token' };
  const sessionOf = (req: IncomingMessage) => auth.readSession(readCookies(req).get(SESSION_COOKIE), deps.clock.now());
  const viewerOf = (req: IncomingMessage): Viewer | undefined => {
    const session = sessionOf(req);
    return session && { sid: session.sid, csrf: auth.csrfToken(session.sid) };
  };
  const flashOf = (req: IncomingMessage) => FLASH[queryOf(req).get('flash') ?? ''];

  /** A page for signed-in people; anyone else is sent to the sign-in page and back. */
  const pageRoute = (path: string, render: (viewer: Viewer, req: IncomingMessage) => Promise<ReturnType<typeof html> | undefined>): HttpRoute => ({
    method: 'GET',
    path,
    async handle(req, res) {
      const viewer = viewerOf(req);
      if (!viewer) return redirect(res, `/console/sign-in?next=${encodeURIComponent(req.url ?? path)}`);
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
  const actionRoute = (path: string, act: (form: URLSearchParams, viewer: Viewer, res: ServerResponse) => Promise<void>): HttpRoute => ({
    method: 'POST',
    path,
    body: {
      limitBytes: FORM_LIMIT_BYTES,
      refuse: (req) => (sessionOf(req) ? undefined : new HttpError(403, 'no_session', 'sign in to the console first')),
    },
    async handle(req, res, readBody: ReadRequestBody) {
      const viewer = viewerOf(req);
      if (!viewer) throw new HttpError(403, 'no_session', 'sign in to the console first');
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
    actionRoute('/console/sign-out', (_form, _viewer, res) => {
      redirect(res, '/console/sign-in', { 'set-cookie': cookie(SESSION_COOKIE, '', { secure: access.secureCookies, maxAgeSeconds: 0 }) });
      return Promise.resolve();
    }),
    pageRoute('/console/runs', (viewer, req) => runsPage(deps, viewer, queryOf(req), flashOf(req))),
    pageRoute('/console/run', (viewer, req) => runPage(deps, viewer, queryOf(req).get('id') ?? '', flashOf(req))),
    pageRoute('/console/attention', (viewer, req) => attentionPage(deps, viewer, flashOf(req))),
    pageRoute('/console/schedules', (viewer, req) => schedulesPage(deps, viewer, flashOf(req))),
    pageRoute('/console/health', (viewer) => healthPage(deps, viewer)),
    pageRoute('/console/keys', (viewer, req) => keysPage(deps, viewer, flashOf(req))),
    actionRoute('/console/keys/connect', async (form, _viewer, res) => {
      if (!deps.keys) return redirect(res, withFlash('/console/keys', 'keys-off'));
      const person = (form.get('person') ?? '').trim();
      const key = (form.get('key') ?? '').trim();
      if (!SLACK_USER_ID.test(person)) return redirect(res, withFlash('/console/keys', 'key-bad-person'));
      if (key === '' || key.length > 512 || /\s/.test(key)) return redirect(res, withFlash('/console/keys', 'key-bad-key'));
      const checked = await deps.keys.check(key);
      if (checked !== 'accepted') return redirect(res, withFlash('/console/keys', `key-${checked}`));
      await deps.keys.people.connect(person, key, deps.clock.now());
      deps.logger.info({ person }, 'personal API key connected in the console');
      redirect(res, withFlash('/console/keys', 'key-connected'));
    }),
    actionRoute('/console/keys/link', async (form, _viewer, res) => redirect(res, withFlash('/console/keys', await linkPeople(deps, form)))),
    actionRoute('/console/keys/unlink', async (form, _viewer, res) => redirect(res, withFlash('/console/keys', await unlinkPeople(deps, form)))),
    actionRoute('/console/keys/remove', async (form, _viewer, res) => {
      if (!deps.keys) return redirect(res, withFlash('/console/keys', 'keys-off'));
      const removed = await deps.keys.people.disconnect(form.get('person') ?? '');
      redirect(res, withFlash('/console/keys', removed ? 'key-removed' : 'key-absent'));
    }),
    actionRoute('/console/run/cancel', async (form, viewer, res) => {
      const run = await deps.store.trackedRuns.get(form.get('id') ?? '');
      if (!run) throw new HttpError(404, 'unknown_run', 'no such run');
      const now = deps.clock.now();
      await deps.intake.submit({
        kind: 'cancel',
        // One cancel per session, run and second: a double click stores one trigger.
        key: `console:cancel:${run.runId}:${viewer.sid}:${Math.floor(now / 1000)}`,
        source: 'console',
        anchor: run.anchor,
        payload: { runId: run.runId, requester: { platform: 'console', id: 'console-admin', name: 'the console admin' } },
      });
      redirect(res, withFlash(`/console/run?id=${encodeURIComponent(run.runId)}`, 'cancel-requested'));
    }),
    actionRoute('/console/delivery/retry', async (form, _viewer, res) => {
      const done = await deps.store.operator.retryDelivery(idOf(form), deps.clock.now());
      if (done) deps.wakeOutbox();
      redirect(res, withFlash(back(form, '/console/attention'), done ? 'delivery-retried' : 'not-failed'));
    }),
    actionRoute('/console/delivery/dismiss', async (form, _viewer, res) => {
      const done = await deps.store.operator.dismissDelivery(idOf(form), deps.clock.now());
      redirect(res, withFlash(back(form, '/console/attention'), done ? 'delivery-dismissed' : 'not-failed'));
    }),
    actionRoute('/console/trigger/retry', async (form, _viewer, res) => {
      const done = await deps.store.operator.retryTrigger(idOf(form), deps.clock.now());
      if (done) deps.wakeIntake();
      redirect(res, withFlash(back(form, '/console/attention'), done ? 'trigger-retried' : 'not-failed'));
    }),
    actionRoute('/console/trigger/dismiss', async (form, _viewer, res) => {
      const done = await deps.store.operator.dismissTrigger(idOf(form), deps.clock.now());
      redirect(res, withFlash(back(form, '/console/attention'), done ? 'trigger-dismissed' : 'not-failed'));
    }),
    actionRoute('/console/schedule/trigger', async (form, _viewer, res) => {
      const outcome = await deps.triggerSchedule(scheduleOf(form).name);
      redirect(res, withFlash('/console/schedules', outcome.status === 'submitted' ? 'fired' : outcome.status === 'skipped' ? 'fire-skipped' : 'fire-taken'));
    }),
    actionRoute('/console/schedule/pause', async (form, _viewer, res) => {
      const { name } = scheduleOf(form);
      if ((await readPause(deps.store.settings, name))?.paused) return redirect(res, withFlash('/console/schedules', 'already-paused'));
      await writePause(deps.store.settings, name, { paused: true, at: deps.clock.now(), reason: 'paused in the web console' });
      redirect(res, withFlash('/console/schedules', 'paused'));
    }),
    actionRoute('/console/schedule/resume', async (form, _viewer, res) => {
      const { name } = scheduleOf(form);
      if (!(await readPause(deps.store.settings, name))?.paused) return redirect(res, withFlash('/console/schedules', 'not-paused'));
      await writePause(deps.store.settings, name, { paused: false, at: deps.clock.now() });
      redirect(res, withFlash('/console/schedules', 'resumed'));
    }),
  ];
  return { routes, oneTimePath: auth.oneTimePath() };
}
