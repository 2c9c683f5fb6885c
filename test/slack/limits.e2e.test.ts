import { beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { RunningService } from '../../src/main.js';
import type { FakeSlackApi } from '../fakes/slack-api.js';
import { SLACK_IDS } from '../fixtures/slack/ids.js';
import { type SlackBridge, useSlackBridge } from '../helpers/slack-bridge.js';
import { messageKey } from '../../src/slack/normalise.js';

/**
 * A limit hit end to end through Slack: Bolt receives signed mentions, the fake Slack Web API
 * records what people are told, the emulator plays the run API. One person may have one run at once.
 */

const CHANNEL = SLACK_IDS.channel;
let bridge: SlackBridge;
let slack: FakeSlackApi, emulator: RunningEmulator, service: RunningService;

const world = useSlackBridge({ channels: { [CHANNEL]: 'dev' }, yaml: 'tracker:\n  interval: 1s\nlimits:\n  per_person: { concurrent: 1 }\n' });
beforeAll(() => {
  bridge = world.bridge;
  ({ slack, emulator, service } = bridge);
});

describe('limits.per_person.concurrent through Slack', () => {
  it('a second mention while the first run works starts nothing: the asker is told privately which limit and when it frees; the thread sees why; after the first ends, a third starts', async () => {
    const first = await bridge.mention('Fix the flaky login test');
    const run = await bridge.until(() => bridge.runFor(CHANNEL, first), 'the first run');
    emulator.engine.drive(run.run_id, 'INPROGRESS');

    const second = await bridge.mention('And update the changelog');
    const ephemeral = await slack.waitForCall('chat.postEphemeral', (call) => call.args['thread_ts'] === second);
    expect(ephemeral.args).toMatchObject({ user: SLACK_IDS.user, channel: CHANNEL });
    expect(String(ephemeral.args['text'])).toBe(
      'No run was started: you have reached your limit of 1 run at once; it frees up when one of your runs ends (limits.per_person.concurrent).',
    );
    const trigger = await bridge.until(async () => {
      const stored = await service.store.triggers.getByKey(messageKey(CHANNEL, second));
      return stored?.state === 'ignored' && stored;
    }, 'the second request settled');
    expect(trigger).toMatchObject({ state: 'ignored', lastError: 'limit', runId: null });
    expect(emulator.engine.list({}).runs).toHaveLength(1);
    // The thread's status message says it could not start, and why.
    const edited = await bridge.until(
      () => slack.callsTo('chat.update').find((call) => call.args['channel'] === CHANNEL && JSON.stringify(call.args).includes('limits.per_person.concurrent')),
      'the status message turned to could not start',
    );
    expect(JSON.stringify(edited.args)).toContain('the person who asked has reached their limit of 1 run at once');

    // The first run ends: there is room again.
    emulator.engine.drive(run.run_id, 'SUCCEEDED');
    await bridge.until(async () => (await service.store.trackedRuns.get(run.run_id))?.tracked === false, 'the first run ended');
    const third = await bridge.mention('Now update the changelog');
    await bridge.until(() => bridge.runFor(CHANNEL, third), 'the third run');
    expect(emulator.engine.list({}).runs).toHaveLength(2);
  });
});
