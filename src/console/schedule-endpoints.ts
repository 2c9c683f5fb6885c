import { readPause, writePause } from '../core/schedules/schedule-pause.js';
import { HttpError } from '../http/http-error.js';
import type { Endpoint } from '../http/server.js';
import { recordConsoleAct } from './audit-acts.js';
import { withFlash } from './flash.js';
import type { ConsoleGate } from './gate.js';
import { redirect } from './http-io.js';

/** The admins' schedule forms: fire now, pause, resume. */
export function scheduleEndpoints(gate: ConsoleGate): Endpoint[] {
  const { deps } = gate;
  const scheduleOf = (form: URLSearchParams) => {
    const schedule = deps.schedules.find((candidate) => candidate.name === form.get('name'));
    if (!schedule) throw new HttpError(404, 'unknown_schedule', 'no such schedule is configured');
    return schedule;
  };
  return [
    gate.action('/console/schedule/trigger', 'admins', async (form, _viewer, res) => {
      const outcome = await deps.triggerSchedule(scheduleOf(form).name);
      redirect(res, withFlash('/console/schedules', outcome.status === 'submitted' ? 'fired' : outcome.status === 'skipped' ? 'fire-skipped' : 'fire-taken'));
    }),
    gate.action('/console/schedule/pause', 'admins', async (form, viewer, res) => {
      const { name } = scheduleOf(form);
      if ((await readPause(deps.store.settings, name))?.paused) return redirect(res, withFlash('/console/schedules', 'already-paused'));
      await writePause(deps.store.settings, name, { paused: true, at: deps.clock.now(), reason: 'paused in the web console' });
      await recordConsoleAct(deps, viewer, 'console.pause', `schedule:${name}`, { schedule: name });
      redirect(res, withFlash('/console/schedules', 'paused'));
    }),
    gate.action('/console/schedule/resume', 'admins', async (form, viewer, res) => {
      const { name } = scheduleOf(form);
      if (!(await readPause(deps.store.settings, name))?.paused) return redirect(res, withFlash('/console/schedules', 'not-paused'));
      await writePause(deps.store.settings, name, { paused: false, at: deps.clock.now() });
      await recordConsoleAct(deps, viewer, 'console.resume', `schedule:${name}`, { schedule: name });
      redirect(res, withFlash('/console/schedules', 'resumed'));
    }),
  ];
}
