import { formatFireTime } from '../../cron-calendar/fire-time.js';
import { readPause } from '../../core/schedules/schedule-pause.js';
import { fireRunOutcome } from '../../core/schedules/schedule-status.js';
import type { ConsoleDeps, ConsoleSchedule, Viewer } from '../deps.js';
import { html, type SafeHtml } from '../html.js';
import { action, page, when } from '../layout.js';

const NEXT_SLOTS = 5;
const RECENT_FIRES = 10;

async function scheduleSection(deps: ConsoleDeps, viewer: Viewer, schedule: ConsoleSchedule, now: number): Promise<SafeHtml> {
  const [pause, fires] = await Promise.all([readPause(deps.store.settings, schedule.name), deps.store.scheduleFires.list(schedule.name, RECENT_FIRES)]);
  const paused = pause?.paused === true;
  const next = schedule.enabled ? schedule.calendar.next(now, NEXT_SLOTS) : [];
  const outcomes = await Promise.all(fires.map((fire) => fireRunOutcome(deps.store, fire)));
  const fields = { name: schedule.name, back: '/console/schedules' };
  return html`<section id="schedule-${schedule.name}" data-schedule="${schedule.name}">
    <h2>
      ${schedule.name}
      ${paused ? html`<span class="bad" data-testid="paused">paused</span>` : schedule.enabled ? '' : html`<span class="muted">disabled</span>`}
    </h2>
    <p><code>${schedule.cron}</code> in ${schedule.timezone}${paused && pause?.reason ? html` — paused ${when(pause.at)}: <bdi>${pause.reason}</bdi>` : ''}</p>
    <p>
      ${action('/console/schedule/trigger', 'Trigger now', viewer.csrf, fields)}
      ${paused ? action('/console/schedule/resume', 'Resume', viewer.csrf, fields) : action('/console/schedule/pause', 'Pause', viewer.csrf, fields)}
    </p>
    <h3>Next fires</h3>
    ${
      next.length === 0
        ? html`<p class="muted">None${schedule.enabled ? '' : ' (disabled: only Trigger now fires it)'}.</p>`
        : html`<ol>
            ${next.map((slot) => html`<li>${formatFireTime(slot.at, schedule.timezone)}</li>`)}
          </ol>`
    }
    <h3>Recent fires</h3>
    ${
      fires.length === 0
        ? html`<p class="muted">No fires yet.</p>`
        : html`<table data-testid="fires">
            <thead>
              <tr>
                <th>Slot</th>
                <th>Fired</th>
                <th>Status</th>
                <th>Reason</th>
                <th>Run</th>
              </tr>
            </thead>
            <tbody>
              ${fires.map((fire, index) => {
                const outcome = outcomes[index];
                const runId = outcome?.kind === 'run' ? outcome.runId : fire.runId;
                return html`<tr>
                  <td>${fire.slot}</td>
                  <td>${when(fire.firedAt)}</td>
                  <td>${fire.status}</td>
                  <td><bdi>${fire.reason ?? (outcome?.kind === 'not_started' ? (outcome.error ?? '') : '')}</bdi></td>
                  <td>
                    ${runId ? html`<a href="/console/run?id=${encodeURIComponent(runId)}">${outcome?.kind === 'run' ? outcome.state : runId}</a>` : outcome?.kind === 'starting' ? 'starting' : '—'}
                  </td>
                </tr>`;
              })}
            </tbody>
          </table>`
    }
  </section>`;
}

export async function schedulesPage(deps: ConsoleDeps, viewer: Viewer, flash?: string): Promise<SafeHtml> {
  const now = deps.clock.now();
  const sections = await Promise.all(deps.schedules.map((schedule) => scheduleSection(deps, viewer, schedule, now)));
  const body = html`<h1>Schedules</h1>
    ${sections.length === 0 ? html`<p class="muted">No schedules are configured (the <code>schedules:</code> list of agent-bridge.yml).</p>` : sections}`;
  return page({ title: 'Schedules', section: 'schedules', csrf: viewer.csrf, body, flash });
}
