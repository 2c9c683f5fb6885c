import { beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { FakeSlackApi } from '../fakes/slack-api.js';
import { appMention } from '../fixtures/slack/events.js';
import { SLACK_IDS } from '../fixtures/slack/ids.js';
import { type SlackBridge, useSlackBridge } from '../helpers/slack-bridge.js';

/** `slack.allowed_users`: others are refused privately and nothing happens. */

let bridge: SlackBridge;
let slack: FakeSlackApi, emulator: RunningEmulator;

const world = useSlackBridge({ yaml: `slack:\n  allowed_users: [${SLACK_IDS.otherUser}]\n` });
beforeAll(() => {
  bridge = world.bridge;
  ({ slack, emulator } = bridge);
});

describe('slack.allowed_users', () => {
  it('someone not listed is told privately and no run starts; a listed person starts one', async () => {
    const refused = appMention({ user: SLACK_IDS.user, text: `<@${SLACK_IDS.botUser}> deploy it` });
    await bridge.post(refused);
    const ephemeral = await slack.waitForCall('chat.postEphemeral');
    expect(ephemeral.args).toMatchObject({ user: SLACK_IDS.user, thread_ts: refused['ts'] });
    expect(String(ephemeral.args['text'])).toContain('slack.allowed_users');
    // Nothing public happened for the refused request: no 👀, no status message.
    expect(
      slack.calls.filter((call) => call.args['timestamp'] === refused['ts'] || call.args['thread_ts'] === refused['ts']).map((call) => call.method),
    ).toEqual(['chat.postEphemeral']);

    const allowed = appMention({ user: SLACK_IDS.otherUser, text: `<@${SLACK_IDS.botUser}> ship it` });
    await bridge.post(allowed);
    await slack.waitForCall('chat.postMessage', (call) => call.args['thread_ts'] === allowed['ts']);
    const deadline = Date.now() + 10_000;
    while (emulator.engine.list({}).runs.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(emulator.engine.list({}).runs.map((run) => run.prompt?.split('\n')[0])).toEqual(['ship it']);
  });

  it('/agent status from someone not listed lists nothing and says why', async () => {
    await slack.waitForCall('chat.postMessage');
    const response = await bridge.command({ user_id: SLACK_IDS.user, text: 'status' });
    const answer = (await response.json()) as { response_type: string; text: string };
    expect(answer.response_type).toBe('ephemeral');
    expect(answer.text).toContain('slack.allowed_users');
    expect(answer.text).not.toMatch(/run_|Active runs/);
  });

  it('/agent from someone not listed is refused in the command’s private answer', async () => {
    const response = await bridge.command({ user_id: SLACK_IDS.user, text: 'cancel run_1' });
    expect(((await response.json()) as { text: string }).text).toContain('slack.allowed_users');
  });
});
