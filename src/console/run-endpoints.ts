import { HttpError } from '../http/http-error.js';
import type { Endpoint } from '../http/server.js';
import { recordConsoleAct } from './audit-acts.js';
import { withFlash } from './flash.js';
import type { ConsoleGate } from './gate.js';
import { redirect } from './http-io.js';
import { consoleRequester } from './requester.js';

/** Where a form says to go back to, when it is a console page; `fallback` otherwise (never another site). */
function back(form: URLSearchParams, fallback: string): string {
  const value = form.get('back');
  return value && /^\/console\/[A-Za-z0-9/_?=&%.~+-]*$/.test(value) ? value : fallback;
}

function idOf(form: URLSearchParams): number {
  const id = Number(form.get('id'));
  if (!Number.isSafeInteger(id) || id <= 0) throw new HttpError(400, 'bad_id', 'id must be a positive whole number');
  return id;
}

/** The forms that act on runs and on what needs attention: cancel a run, retry or dismiss a failed delivery or trigger. */
export function runEndpoints(gate: ConsoleGate): Endpoint[] {
  const { deps } = gate;
  return [
    gate.action('/console/run/cancel', 'everyone', async (form, viewer, res) => {
      const run = await deps.store.trackedRuns.get(form.get('id') ?? '');
      if (!run || !(await gate.mayOpen(viewer, run.runId))) throw new HttpError(404, 'unknown_run', 'no such run');
      const now = deps.clock.now();
      await deps.intake.submit({
        kind: 'cancel',
        // One cancel per session, run and second: a double click stores one trigger.
        key: `console:cancel:${run.runId}:${viewer.sid}:${Math.floor(now / 1000)}`,
        source: 'console',
        anchor: run.anchor,
        // A person signed in with Slack cancels as themselves (their key, their name in the thread).
        payload: { runId: run.runId, requester: consoleRequester(viewer) },
      });
      redirect(res, withFlash(`/console/run?id=${encodeURIComponent(run.runId)}`, 'cancel-requested'));
    }),
    gate.action('/console/delivery/retry', 'admins', async (form, viewer, res) => {
      const id = idOf(form);
      const done = await deps.store.operator.retryDelivery(id, deps.clock.now());
      if (done) await recordConsoleAct(deps, viewer, 'console.retry', `delivery:${id}`, { delivery: id });
      if (done) deps.wakeOutbox();
      redirect(res, withFlash(back(form, '/console/attention'), done ? 'delivery-retried' : 'not-failed'));
    }),
    gate.action('/console/delivery/dismiss', 'admins', async (form, viewer, res) => {
      const id = idOf(form);
      const done = await deps.store.operator.dismissDelivery(id, deps.clock.now());
      if (done) await recordConsoleAct(deps, viewer, 'console.dismiss', `delivery:${id}`, { delivery: id });
      redirect(res, withFlash(back(form, '/console/attention'), done ? 'delivery-dismissed' : 'not-failed'));
    }),
    gate.action('/console/trigger/retry', 'admins', async (form, viewer, res) => {
      const id = idOf(form);
      const done = await deps.store.operator.retryTrigger(id, deps.clock.now());
      if (done) await recordConsoleAct(deps, viewer, 'console.retry', `trigger:${id}`, { trigger: id });
      if (done) deps.wakeIntake();
      redirect(res, withFlash(back(form, '/console/attention'), done ? 'trigger-retried' : 'not-failed'));
    }),
    gate.action('/console/trigger/dismiss', 'admins', async (form, viewer, res) => {
      const id = idOf(form);
      const done = await deps.store.operator.dismissTrigger(id, deps.clock.now());
      if (done) await recordConsoleAct(deps, viewer, 'console.dismiss', `trigger:${id}`, { trigger: id });
      redirect(res, withFlash(back(form, '/console/attention'), done ? 'trigger-dismissed' : 'not-failed'));
    }),
  ];
}
