import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { aSchedule, at, ScheduleHarness } from '../../../test/core/schedule-harness.js';
import { pausedNoticeText } from './schedule-failures.js';
import type { ScheduleDefinition } from './schedule-definition.js';
import { readPause, writePause } from './schedule-pause.js';
import { scheduleStatus } from './schedule-status.js';
import type { Scheduler } from './scheduler.js';

let h: ScheduleHarness;
let scheduler: Scheduler | undefined;
beforeEach(() => {
  h = new ScheduleHarness();
});
afterEach(async () => {
  await scheduler?.stop();
  scheduler = undefined;
  await h.close();
});

const SLACK = 'slack:C0999ZZZZ';

async function start(def: ScheduleDefinition): Promise<Scheduler> {
  scheduler = h.scheduler([def]);
  await scheduler.start();
  return scheduler;
}

/** Fires the next hourly slot and plays its run to `outcome` (`not started`: the intake worker gave up). */
async function fireAndEnd(hour: number, outcome: string): Promise<void> {
  await h.advanceTo(at(`${String(hour).padStart(2, '0')}:00:00`));
  if (outcome === 'not started') return h.failTriggers();
  const [runId] = await h.createRuns('INPROGRESS');
  if (runId && outcome !== 'INPROGRESS') await h.observe(runId, outcome);
}

async function pausedNotices(): Promise<string[]> {
  return (await h.store.outbox.list()).filter((row) => row.key.startsWith('notice:schedule-paused:')).map((row) => row.key);
}

describe('pause_after_failures', () => {
  it('pauses after N failed runs in a row, says so once where the schedule reports, skips, and resumes', async () => {
    const def = aSchedule({ pauseAfterFailures: 2, overlap: 'allow', notify: { slackChannel: 'C0999ZZZZ', linearIssue: 'ENG-42' } });
    const s = await start(def);
    await fireAndEnd(1, 'FAILED');
    await s.check();
    expect((await readPause(h.store.settings, 'nightly'))?.paused).not.toBe(true);
    await fireAndEnd(2, 'ERROR');
    await s.check();
    await s.check();
    expect(await readPause(h.store.settings, 'nightly')).toMatchObject({ paused: true, reason: '2 failed runs in a row; last: run run_2 ended ERROR' });
    expect(await pausedNotices()).toEqual([
      `notice:schedule-paused:nightly:2026-01-01T02:00:00:${SLACK}`,
      'notice:schedule-paused:nightly:2026-01-01T02:00:00:linear:ENG-42',
    ]);
    const notice = await h.store.outbox.getByKey(`notice:schedule-paused:nightly:2026-01-01T02:00:00:${SLACK}`);
    expect(notice).toMatchObject({ destination: SLACK, kind: 'notice', payload: { kind: 'notice', text: pausedNoticeText('nightly', 2) } });
    expect(pausedNoticeText('nightly', 2)).toBe('Schedule nightly paused after 2 failed runs in a row; resume with `agent-bridge schedules resume nightly`.');

    await h.advanceTo(at('03:00:00'));
    expect((await h.fires()).at(-1)).toMatchObject({ status: 'skipped', reason: 'paused (2 failed runs in a row; last: run run_2 ended ERROR)' });

    await writePause(h.store.settings, 'nightly', { paused: false, at: h.clock.now() });
    // The resumed schedule gets fresh tries: the two failures before the resume no longer count.
    await fireAndEnd(4, 'FAILED');
    await s.check();
    expect((await readPause(h.store.settings, 'nightly'))?.paused).toBe(false);
    await fireAndEnd(5, 'FAILED');
    await s.check();
    expect((await readPause(h.store.settings, 'nightly'))?.paused).toBe(true);
    expect(await pausedNotices()).toHaveLength(4);
  });

  it.each([
    ['FAILED, CANCELLED, ERROR', ['FAILED', 'CANCELLED', 'ERROR'], true],
    ['FAILED, SUCCEEDED, ERROR', ['FAILED', 'SUCCEEDED', 'ERROR'], false],
    ['not started, FAILED', ['not started', 'FAILED'], true],
    ['FAILED, FAILED, still running', ['FAILED', 'FAILED', 'INPROGRESS'], true],
    ['FAILED, still running', ['FAILED', 'INPROGRESS'], false],
  ])('N=2 after %s: paused %s', async (_name, outcomes, paused) => {
    const s = await start(aSchedule({ pauseAfterFailures: 2, overlap: 'allow' }));
    for (const [index, outcome] of outcomes.entries()) await fireAndEnd(index + 1, outcome);
    await s.check();
    expect((await readPause(h.store.settings, 'nightly'))?.paused === true).toBe(paused);
  });

  it('is also noticed when the next slot fires, before deciding it', async () => {
    await start(aSchedule({ pauseAfterFailures: 1 }));
    await fireAndEnd(1, 'FAILED');
    await h.advanceTo(at('02:00:00'));
    expect(await h.statuses()).toEqual(['01:00 submitted', '02:00 skipped']);
    expect(await pausedNotices()).toEqual(['notice:schedule-paused:nightly:2026-01-01T01:00:00:log:schedule:nightly']);
  });

  it('a manual trigger of a paused schedule still fires', async () => {
    const s = await start(aSchedule());
    await writePause(h.store.settings, 'nightly', { paused: true, at: h.clock.now(), reason: 'paused by hand' });
    expect(await s.trigger('nightly')).toMatchObject({ status: 'submitted' });
    await h.advanceTo(at('01:00:00'));
    expect((await h.fires()).at(-1)).toMatchObject({ status: 'skipped', reason: 'paused (paused by hand)' });
  });
});

describe('fire bookkeeping and status', () => {
  it('check notes the created run or why none was started', async () => {
    const s = await start(aSchedule({ overlap: 'allow' }));
    await fireAndEnd(1, 'SUCCEEDED');
    await fireAndEnd(2, 'not started');
    await s.check();
    expect(await h.fires()).toMatchObject([
      { status: 'created', runId: 'run_1' },
      { status: 'failed', reason: 'the run could not be started: bad_request' },
    ]);
  });

  it('scheduleStatus shows the next fire times, the last fire with its run and outcome, and the pause', async () => {
    const def = aSchedule();
    expect(await scheduleStatus(def, undefined, h.clock.now())).toEqual({
      name: 'nightly',
      enabled: true,
      paused: false,
      next: [
        { key: '2026-01-01T01:00:00', at: at('01:00:00') },
        { key: '2026-01-01T02:00:00', at: at('02:00:00') },
        { key: '2026-01-01T03:00:00', at: at('03:00:00') },
      ],
    });
    await start(def);
    await fireAndEnd(1, 'INPROGRESS');
    await writePause(h.store.settings, 'nightly', { paused: true, at: at('01:30:00'), reason: 'by hand' });
    const status = await scheduleStatus(def, h.store, h.clock.now());
    expect(status).toMatchObject({
      paused: true,
      pause: { reason: 'by hand', at: at('01:30:00') },
      next: [{ key: '2026-01-01T02:00:00' }, { key: '2026-01-01T03:00:00' }, { key: '2026-01-01T04:00:00' }],
      last: { slot: '2026-01-01T01:00:00', status: 'submitted', runId: 'run_1', outcome: 'INPROGRESS', firedAt: at('01:00:00') },
    });
  });
});
