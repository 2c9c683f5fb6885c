import { afterAll, beforeAll, expect, it } from 'vitest';
import { aSchedule, at, ScheduleHarness } from '../../../test/core/schedule-harness.js';
import { AgentApiClient } from '../../agent-api/index.js';
import { startEmulator, type RunningEmulator } from '../../emulator/index.js';
import { IntakeWorker } from '../intake/intake-worker.js';
import { IntakeService } from '../intake/intake-service.js';
import { Scheduler } from './scheduler.js';
import { referenceLine } from '../ports/triggers.js';
import { anchorAliasSetting } from '../ports/setting-names.js';
import { testSurfaces } from '../../../test/helpers/surfaces.js';

/*
 * A scheduled fire end to end through the core: the scheduler stores the trigger, the real intake
 * worker creates the run on the emulator with the schedule's route, and the overlap check then asks
 * the real run API.
 */

const KEY = 'scheduler-intake-key';
let emulator: RunningEmulator;
let client: AgentApiClient;
beforeAll(async () => {
  emulator = await startEmulator({ apiKey: KEY, port: 0, manual: true });
  client = new AgentApiClient({ baseUrl: emulator.baseUrl, apiKey: KEY, retry: { maxRetries: 0 } });
});
afterAll(async () => {
  await client.close();
  await emulator.close();
});

it('a fire becomes a run with the schedule route, reported where notify says, and a Linear comment reaches it', async () => {
  const h = new ScheduleHarness();
  const def = aSchedule({ title: 'Nightly dependency update', notify: { slackChannel: 'C0999ZZZZ', linearIssue: 'ENG-42' } });
  const routing = {
    defaults: { config: { environment_id: 'env_main' } },
    schedules: { nightly: { config: { environment_id: 'env_api' } } },
  };
  const intake = new IntakeWorker({
    store: h.store,
    runs: client,
    clock: h.clock,
    logger: h.logger,
    routing,
    surfaces: testSurfaces(),
    owner: 'intake',
    options: { retryWindowMs: 60_000 },
  });
  const scheduler = new Scheduler({
    store: h.store,
    intake: new IntakeService({ store: h.store, clock: h.clock }),
    agentRuns: client,
    clock: h.clock,
    logger: h.logger,
    owner: 's',
    schedules: [def],
    surfaces: testSurfaces(),
  });
  try {
    await scheduler.start();
    await h.advanceTo(at('01:00:00'));
    expect(await intake.drain()).toBe(1);
    const [run] = emulator.engine.list({}).runs;
    expect(run).toMatchObject({
      title: 'Nightly dependency update',
      prompt: `${def.prompt}\n\n${referenceLine('schedule:nightly:2026-01-01T01:00:00')}`,
      agent_config: { environment_id: 'env_api', name: 'nightly' },
    });
    expect(await h.store.trackedRuns.get(run!.run_id)).toMatchObject({ source: 'schedule', destinations: ['slack:C0999ZZZZ', 'linear:ENG-42'] });
    // The intake worker resolves a comment on the issue through the alias to this run.
    const anchor = await h.store.settings.get(anchorAliasSetting('linear:ENG-42'));
    expect(await h.store.anchors.currentRun(anchor!)).toBe(run!.run_id);

    emulator.engine.drive(run!.run_id, 'INPROGRESS');
    await h.advanceTo(at('02:00:00'));
    await scheduler.check(); // queued behind the pass, so this waits for its run-API call
    expect((await h.fires()).at(-1)).toMatchObject({ status: 'skipped', reason: `overlap: skip — the previous run ${run!.run_id} is still INPROGRESS` });
    emulator.engine.drive(run!.run_id, 'SUCCEEDED');
    await h.advanceTo(at('03:00:00'));
    await scheduler.check();
    expect(await h.statuses()).toEqual(['01:00 created', '02:00 skipped', '03:00 submitted']);
  } finally {
    await scheduler.stop();
    await h.close();
  }
});
