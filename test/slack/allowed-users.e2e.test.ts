import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import type { RunningService } from '../../src/main.js';
import { startFakeSlackApi, type FakeSlackApi } from '../fakes/slack-api.js';
import { postSlackEvent, postSlackForm } from '../fakes/slack-signing.js';
import { appMention, eventCallback } from '../fixtures/slack/events.js';
import { SLACK_IDS } from '../fixtures/slack/ids.js';
import { slashCommand } from '../fixtures/slack/interactions.js';
import { startBridge } from '../helpers/start-bridge.js';

/** `slack.allowed_users`: others are refused privately and nothing happens. */

const SECRET = 'allowed-users-secret-0123456789';
const BOT_TOKEN = 'xoxb-0000-1111-allowed-users';
let slack: FakeSlackApi;
let emulator: RunningEmulator;
let service: RunningService;

beforeAll(async () => {
  slack = await startFakeSlackApi({ token: BOT_TOKEN });
  emulator = await startEmulator({ apiKey: 'allowed-key', port: 0, manual: true });
  ({ service } = await startBridge({
    agentApi: { baseUrl: emulator.baseUrl, apiKey: 'allowed-key' },
    env: { SLACK_BOT_TOKEN: BOT_TOKEN, SLACK_SIGNING_SECRET: SECRET, SLACK_API_URL: slack.url },
    yaml: `slack:\n  allowed_users: [${SLACK_IDS.otherUser}]\n`,
  }));
});
afterAll(async () => {
  await service.stop();
  await emulator.close();
  await slack.close();
});

describe('slack.allowed_users', () => {
  it('someone not listed is told privately and no run starts; a listed person starts one', async () => {
    const refused = appMention({ user: SLACK_IDS.user, text: `<@${SLACK_IDS.botUser}> deploy it` });
    await postSlackEvent(`${service.url}/slack/events`, SECRET, eventCallback(refused));
    const ephemeral = await slack.waitForCall('chat.postEphemeral');
    expect(ephemeral.args).toMatchObject({ user: SLACK_IDS.user, thread_ts: refused['ts'] });
    expect(String(ephemeral.args['text'])).toContain('slack.allowed_users');
    // Nothing public happened for the refused request: no 👀, no status message.
    expect(
      slack.calls.filter((call) => call.args['timestamp'] === refused['ts'] || call.args['thread_ts'] === refused['ts']).map((call) => call.method),
    ).toEqual(['chat.postEphemeral']);

    const allowed = appMention({ user: SLACK_IDS.otherUser, text: `<@${SLACK_IDS.botUser}> ship it` });
    await postSlackEvent(`${service.url}/slack/events`, SECRET, eventCallback(allowed));
    await slack.waitForCall('chat.postMessage', (call) => call.args['thread_ts'] === allowed['ts']);
    const deadline = Date.now() + 10_000;
    while (emulator.engine.list({}).runs.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(emulator.engine.list({}).runs.map((run) => run.prompt?.split('\n')[0])).toEqual(['ship it']);
  });

  it('/agent status from someone not listed lists nothing and says why', async () => {
    await slack.waitForCall('chat.postMessage');
    const response = await postSlackForm(`${service.url}/slack/events`, SECRET, slashCommand({ user_id: SLACK_IDS.user, text: 'status' }));
    const answer = (await response.json()) as { response_type: string; text: string };
    expect(answer.response_type).toBe('ephemeral');
    expect(answer.text).toContain('slack.allowed_users');
    expect(answer.text).not.toMatch(/run_|Active runs/);
  });

  it('/agent from someone not listed is refused in the command’s private answer', async () => {
    const response = await postSlackForm(`${service.url}/slack/events`, SECRET, slashCommand({ user_id: SLACK_IDS.user, text: 'cancel run_1' }));
    expect(((await response.json()) as { text: string }).text).toContain('slack.allowed_users');
  });
});
