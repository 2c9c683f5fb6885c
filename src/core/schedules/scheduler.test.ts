import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { aSchedule, at, DAY0, everyCalendar, HOUR, MINUTE, ScheduleHarness } from '../../../test/core/schedule-harness.js';
import { tempDir } from '../../../test/store/helpers.js';
import { openSqliteStore } from '../../store/sqlite-store.js';
import { AgentApiError } from '../ports/agent-runs.js';
import { receivedKey } from '../ports/messages.js';
import { FIRE_LEASE_MS } from './schedule-fire.js';
import { scheduleTriggerKey } from './schedule-definition.js';
import { writePause } from './schedule-pause.js';
import type { Scheduler } from './scheduler.js';
import { anchorAliasSetting } from '../ports/setting-names.js';

let h: ScheduleHarness;
const running: Scheduler[] = [];
beforeEach(() => {
  h = new ScheduleHarness();
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((scheduler) => scheduler.stop()));
  await h.close();
});

/** A started scheduler, stopped after the test. */
async function started(...args: Parameters<ScheduleHarness['scheduler']>): Promise<Scheduler> {
  const scheduler = h.scheduler(...args);
  running.push(scheduler);
  await scheduler.start();
  return scheduler;
}

describe('Scheduler firing', () => {
  it('fires each slot once at its time, through a start trigger the intake worker picks up', async () => {
    await started([aSchedule({ overlap: 'allow' })]);
    expect(h.triggerKeys()).toEqual([]);
    await h.advanceTo(at('01:00:00') - 1);
    expect(h.triggerKeys()).toEqual([]);
    await h.advanceTo(at('02:30:00'));
    expect(await h.statuses()).toEqual(['01:00 submitted', '02:00 submitted']);
    const key = scheduleTriggerKey('nightly', '2026-01-01T01:00:00');
    expect(h.triggerKeys()).toEqual([key, scheduleTriggerKey('nightly', '2026-01-01T02:00:00')]);
    expect(await h.store.triggers.getByKey(key)).toMatchObject({
      kind: 'start',
      source: 'schedule',
      anchor: key,
      state: 'pending',
      payload: {
        prompt: 'Update the dependencies\nand open a pull request.',
        title: 'Update the dependencies',
        origin: { source: 'schedule', schedule: 'nightly' },
        destinations: ['log:schedule:nightly'],
      },
    });
    expect(await h.store.outbox.getByKey(receivedKey(key, 'log:schedule:nightly'))).toMatchObject({ kind: 'received' });
    expect((await h.fires())[0]).toMatchObject({ firedAt: at('01:00:00'), triggerKey: key });
  });

  it('reports to the Slack channel and the Linear issue, and points the issue at the latest fire', async () => {
    await started([aSchedule({ title: 'Deps', overlap: 'allow', notify: { slackChannel: 'C0999ZZZZ', linearIssue: 'ENG-42' } })]);
    await h.advanceTo(at('02:00:00'));
    const latest = scheduleTriggerKey('nightly', '2026-01-01T02:00:00');
    expect(await h.store.triggers.getByKey(latest)).toMatchObject({ payload: { title: 'Deps', destinations: ['slack:C0999ZZZZ', 'linear:ENG-42'] } });
    expect(await h.store.settings.get(anchorAliasSetting('linear:ENG-42'))).toBe(latest);
  });

  it('a restarted scheduler on the same database does not fire a slot again', async () => {
    const first = await started();
    await h.advanceTo(at('01:00:20'));
    await first.stop();
    await started(undefined, { owner: 'scheduler-2' });
    await h.advanceTo(at('01:30:00'));
    expect(await h.statuses()).toEqual(['01:00 submitted']);
    expect(h.triggerKeys()).toHaveLength(1);
  });

  it('two schedulers on one database file fire each slot once', async () => {
    const { dir, remove } = tempDir();
    const stores = [openSqliteStore({ path: `${dir}/bridge.db` }), openSqliteStore({ path: `${dir}/bridge.db` })];
    try {
      const def = aSchedule({ overlap: 'allow' });
      await started([def], { owner: 'a', store: stores[0] });
      await started([def], { owner: 'b', store: stores[1] });
      await h.advanceTo(at('03:30:00'));
      const fires = (await stores[1]!.scheduleFires.list('nightly', 10)).reverse();
      expect(fires.map((fire) => `${fire.slot} ${fire.status}`)).toEqual([
        '2026-01-01T01:00:00 submitted',
        '2026-01-01T02:00:00 submitted',
        '2026-01-01T03:00:00 submitted',
      ]);
      expect(stores[0]!.db.prepare('SELECT COUNT(*) FROM triggers').pluck().get()).toBe(3);
      // Racing directly: one manual fire each at the same instant, one wins.
      const outcomes = await Promise.all(running.map((scheduler) => scheduler.trigger('nightly')));
      expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['submitted', 'taken']);
    } finally {
      await Promise.all(running.splice(0).map((scheduler) => scheduler.stop()));
      await Promise.all(stores.map((store) => store.close()));
      remove();
    }
  });

  it('completes a fire recorded but never submitted exactly once at start', async () => {
    const slot = '2026-01-01T00:00:00';
    const triggerKey = scheduleTriggerKey('nightly', slot);
    await h.store.scheduleFires.record({ schedule: 'nightly', slot, firedAt: DAY0, status: 'recorded', triggerKey });
    const first = await started();
    expect(await h.statuses()).toEqual(['00:00 submitted']);
    await first.stop();
    // Even if the status update were lost, a second completion would submit the same key: a no-op.
    await h.store.scheduleFires.update('nightly', slot, { status: 'recorded' });
    await started(undefined, { owner: 'scheduler-2' });
    expect(await h.statuses()).toEqual(['00:00 submitted']);
    expect(h.triggerKeys()).toEqual([triggerKey]);
  });

  it('leaves a recorded fire to the process deciding it, and completes it once that lease expires', async () => {
    const slot = '2026-01-01T00:00:00';
    await h.store.scheduleFires.record({ schedule: 'nightly', slot, firedAt: DAY0, status: 'recorded', triggerKey: scheduleTriggerKey('nightly', slot) });
    await h.store.leases.acquire(`schedule-fire:nightly:${slot}`, 'crashed-process', h.clock.now(), FIRE_LEASE_MS);
    const scheduler = await started();
    await scheduler.check();
    expect(await h.statuses()).toEqual(['00:00 recorded']);
    await h.clock.advance(FIRE_LEASE_MS);
    await scheduler.check();
    expect(await h.statuses()).toEqual(['00:00 submitted']);
  });

  it('a recorded fire whose trigger was already stored is finished without deciding again', async () => {
    const slot = '2026-01-01T00:00:00';
    const key = scheduleTriggerKey('nightly', slot);
    // What a crash right after the submit leaves: the fire still `recorded`, its trigger stored.
    await h.store.scheduleFires.record({ schedule: 'nightly', slot, firedAt: DAY0, status: 'recorded', triggerKey: key });
    await h.store.triggers.enqueue({
      trigger: {
        key,
        kind: 'start',
        source: 'schedule',
        anchor: key,
        payload: { prompt: 'p', title: 't', origin: { source: 'schedule', schedule: 'nightly' }, destinations: ['log:schedule:nightly'] },
      },
      now: DAY0,
    });
    await writePause(h.store.settings, 'nightly', { paused: true, at: DAY0 });
    await started([aSchedule({ notify: { linearIssue: 'ENG-7' } })]);
    expect(await h.statuses()).toEqual(['00:00 submitted']);
    expect(await h.store.settings.get(anchorAliasSetting('linear:ENG-7'))).toBe(key);
  });

  it('re-arms long waits in chunks setTimeout can take', async () => {
    const period = 90 * 24 * HOUR;
    await started([aSchedule({ calendar: everyCalendar(period) })]);
    const slot = Math.floor(h.clock.now() / period) * period + period;
    expect(slot - h.clock.now()).toBeGreaterThan(2 ** 31 - 1);
    await h.advanceTo(slot - 1);
    expect(await h.statuses()).toEqual([]);
    expect(h.clock.pending).toBe(1);
    await h.advanceTo(slot);
    expect(await h.fires()).toMatchObject([{ firedAt: slot, status: 'submitted' }]);
  });

  it('stop cancels the timers; disabled schedules are never armed', async () => {
    const scheduler = await started([aSchedule(), aSchedule({ name: 'off', enabled: false })]);
    expect(h.clock.pending).toBe(1);
    await scheduler.stop();
    expect(h.clock.pending).toBe(0);
    await h.advanceTo(at('05:00:00'));
    expect(h.triggerKeys()).toEqual([]);
  });
});

describe('Scheduler overlap', () => {
  it('skip: waits while the previous fire is starting or its run is active, and fires once it ended', async () => {
    await started();
    await h.advanceTo(at('02:00:00'));
    expect((await h.fires())[1]).toMatchObject({
      status: 'skipped',
      reason: 'overlap: skip — the previous fire (2026-01-01T01:00:00) is still starting its run',
    });
    const [runId] = await h.createRuns('INPROGRESS');
    await h.advanceTo(at('03:00:00'));
    expect((await h.fires())[2]).toMatchObject({ status: 'skipped', reason: `overlap: skip — the previous run ${runId} is still INPROGRESS` });
    await h.observe(runId!, 'SUCCEEDED');
    await h.advanceTo(at('04:00:00'));
    expect(await h.statuses()).toEqual(['01:00 submitted', '02:00 skipped', '03:00 skipped', '04:00 submitted']);
  });

  it('allow: fires while the previous run is active, without asking the run API', async () => {
    await started([aSchedule({ overlap: 'allow' })]);
    await h.advanceTo(at('01:00:00'));
    await h.createRuns('INPROGRESS');
    await h.advanceTo(at('02:00:00'));
    expect(await h.statuses()).toEqual(['01:00 submitted', '02:00 submitted']);
    expect(h.api.calls).toBe(0);
  });

  it.each([
    ['the run API does not know the run', 'not_found', 'INPROGRESS', 'submitted'],
    ['the API is unreachable and the tracker saw the run end', 'connection', 'FAILED', 'submitted'],
    ['the API is unreachable and the run was last seen active', 'connection', 'INPROGRESS', 'skipped'],
  ])('when %s the slot is %s', async (_case, kind, lastSeen, expected) => {
    await started();
    await h.advanceTo(at('01:00:00'));
    const [runId] = await h.createRuns('INPROGRESS');
    await h.observe(runId!, lastSeen);
    h.api.failWith = new AgentApiError('boom', { kind: kind as 'connection', status: kind === 'not_found' ? 404 : 0, retryable: kind !== 'not_found' });
    await h.advanceTo(at('02:00:00'));
    const fire = (await h.fires())[1];
    expect(fire?.status).toBe(expected);
    if (expected === 'skipped')
      expect(fire?.reason).toMatch(
        new RegExp(`could not ask the run API whether the previous run ${runId} has ended \\(could not reach the run API.*last seen INPROGRESS`),
      );
  });

  it('a manual trigger is recorded like any fire and honours overlap', async () => {
    const scheduler = await started();
    const first = await scheduler.trigger('nightly');
    expect(first).toEqual({ status: 'submitted', slot: 'manual:2026-01-01T00:10:00.000Z', triggerKey: 'schedule:nightly:manual:2026-01-01T00:10:00.000Z' });
    await h.clock.advance(1);
    expect(await scheduler.trigger('nightly')).toMatchObject({ status: 'skipped', reason: expect.stringMatching(/still starting/) });
    await expect(scheduler.trigger('nope')).rejects.toThrow('no schedule named "nope"');
  });
});

describe('Scheduler catch-up', () => {
  /** History: the 00:00 slot fired; the bridge then was down until `startAt`. */
  async function downUntil(startAt: number) {
    const slot = '2026-01-01T00:00:00';
    await h.store.scheduleFires.record({ schedule: 'nightly', slot, firedAt: DAY0, status: 'submitted', triggerKey: scheduleTriggerKey('nightly', slot) });
    await h.advanceTo(startAt);
  }

  it.each([
    ['none', HOUR, at('03:30:00'), ['00:00 submitted', '01:00 missed', '02:00 missed', '03:00 missed']],
    ['latest', HOUR, at('03:30:00'), ['00:00 submitted', '01:00 missed', '02:00 missed', '03:00 submitted']],
    ['latest (more than 1 h ago)', 2 * HOUR, at('05:30:00'), ['00:00 submitted', '02:00 missed', '04:00 missed']],
    ['none, but late by less than a minute', HOUR, at('03:00:40'), ['00:00 submitted', '01:00 missed', '02:00 missed', '03:00 submitted']],
  ] as const)('catch_up: %s', async (mode, period, startAt, expected) => {
    await downUntil(startAt);
    await started([aSchedule({ catchUp: mode.startsWith('latest') ? 'latest' : 'none', calendar: everyCalendar(period), overlap: 'allow' })]);
    expect(await h.statuses()).toEqual(expected);
    expect((await h.fires())[1]?.reason).toMatch(/the bridge was not running at this time/);
  });

  it('a caught-up fire says so, and fires once however many processes start', async () => {
    await downUntil(at('03:30:00'));
    await started([aSchedule({ catchUp: 'latest', overlap: 'allow' })]);
    await started([aSchedule({ catchUp: 'latest', overlap: 'allow' })], { owner: 'scheduler-2' });
    expect((await h.fires()).at(-1)).toMatchObject({
      slot: '2026-01-01T03:00:00',
      status: 'submitted',
      reason: expect.stringMatching(/^catch_up: latest — fired 30 min late/),
    });
    expect(h.triggerKeys()).toHaveLength(1);
  });

  it('with no fire recorded, nothing counts as missed', async () => {
    await h.advanceTo(at('05:30:00'));
    await started([aSchedule({ catchUp: 'latest' })]);
    expect(await h.statuses()).toEqual([]);
  });

  it('records at most the latest missed slots', async () => {
    await downUntil(at('20:30:00'));
    await started([aSchedule({ calendar: everyCalendar(MINUTE) })], { options: { missedLimit: 5 } });
    const fires = await h.fires();
    expect(fires).toHaveLength(7);
    expect(fires.at(-1)).toMatchObject({ slot: '2026-01-01T20:30:00', status: 'submitted' });
    expect(fires[1]?.slot).toBe('2026-01-01T20:25:00');
  });
});

describe('Scheduler under load', () => {
  it('a slot that fell due while the previous pass waited for the run API still fires', async () => {
    let release: () => void = () => {};
    const slowApi = h.api.getRun.bind(h.api);
    h.api.getRun = (runId) => new Promise((resolve) => (release = () => resolve(slowApi(runId))));
    const scheduler = await started();
    await scheduler.trigger('nightly');
    const [runId] = await h.createRuns('INPROGRESS');
    await h.observe(runId!, 'SUCCEEDED');
    await h.advanceTo(at('01:00:00')); // the 01:00 pass now waits for getRun
    await h.advanceTo(at('02:03:00'));
    release();
    await h.clock.advance(0);
    await scheduler.check();
    // 02:00 was decided (not recorded as missed): it waits for the 01:00 run under overlap: skip.
    expect((await h.fires()).map((fire) => `${fire.slot} ${fire.status}`)).toEqual([
      'manual:2026-01-01T00:10:00.000Z created',
      '2026-01-01T01:00:00 submitted',
      '2026-01-01T02:00:00 skipped',
    ]);
    expect((await h.fires()).at(-1)?.reason).toMatch(/the previous fire \(2026-01-01T01:00:00\) is still starting/);
  });
});
