import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { referenceLine } from '../../src/core/ports/triggers.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import type { RunningService } from '../../src/main.js';
import { sendToAgentKey } from '../../src/slack/shortcut.js';
import { startFakeSlackApi, type FakeSlackApi } from '../fakes/slack-api.js';
import { postSlackEvent, postSlackInteraction } from '../fakes/slack-signing.js';
import { appMention, eventCallback } from '../fixtures/slack/events.js';
import { SLACK_IDS, nextTs } from '../fixtures/slack/ids.js';
import { sendToAgentShortcut } from '../fixtures/slack/interactions.js';
import { startBridge } from '../helpers/start-bridge.js';
import { until as waitFor } from '../helpers/until.js';

/*
 * Slack's own places for the agent (issue 23), end to end: the real Bolt on the running service
 * receives correctly signed requests, the fake Slack Web API records every call, the emulator plays
 * the run API. `slack.allowed_users` lists SLACK_IDS.user only: SLACK_IDS.otherUser is refused.
 */

const SECRET = 'native-places-secret-0123456789';
const BOT_TOKEN = 'xoxb-0000-1111-native-places';
const API_KEY = 'native-places-key';
const CHANNEL = SLACK_IDS.channel;
const ALLOWED = SLACK_IDS.user;
const REFUSED = SLACK_IDS.otherUser;
let slack: FakeSlackApi;
let emulator: RunningEmulator;
let service: RunningService;
let events: string;

beforeAll(async () => {
  slack = await startFakeSlackApi({ token: BOT_TOKEN });
  slack.setChannel(CHANNEL, { name: 'dev' });
  slack.setUser(ALLOWED, { display_name: 'ada' });
  slack.setUser(REFUSED, { display_name: 'grace' });
  emulator = await startEmulator({ apiKey: API_KEY, port: 0, manual: true });
  ({ service } = await startBridge({
    agentApi: { baseUrl: emulator.baseUrl, apiKey: API_KEY },
    env: { SLACK_BOT_TOKEN: BOT_TOKEN, SLACK_SIGNING_SECRET: SECRET, SLACK_API_URL: slack.url },
    yaml: `tracker:\n  interval: 1s\nslack:\n  allowed_users: [${ALLOWED}]\n  channels:\n    ${CHANNEL}: { config: { environment_id: env_web, name: web } }\n`,
  }));
  events = `${service.url}/slack/events`;
});
afterAll(async () => {
  await service.stop();
  await emulator.close();
  await slack.close();
});
afterEach(() => {
  emulator.engine.reset();
});

const until = <T>(find: () => T | undefined | false | Promise<T | undefined | false>, what: string, timeoutMs = 10_000) =>
  waitFor(find, what, timeoutMs, () => `slack calls: ${slack.calls.map((call) => call.method).join(', ')}`);
const triggerCount = async () => Object.values(await service.store.triggers.countByState()).reduce((sum, count) => sum + count, 0);
const runsWith = (key: string) => emulator.engine.list({}).runs.filter((run) => run.prompt?.includes(referenceLine(key)));
const threadPosts = (threadTs: string) => slack.callsTo('chat.postMessage').filter((call) => call.args['thread_ts'] === threadTs);

describe('the message shortcut "Send to agent" (send_to_agent)', () => {
  it('starts one run on that message, in its thread, with the thread as context; a re-sent payload starts nothing', async () => {
    const parent = slack.addUserMessage({ channel: CHANNEL, user: REFUSED, text: 'Login is broken since this morning' });
    const reply = slack.addUserMessage({
      channel: CHANNEL,
      user: REFUSED,
      thread_ts: parent.ts,
      text: 'The login page 500s when the password has a &amp; in it',
    });
    const payload = sendToAgentShortcut({ user: ALLOWED, ts: reply.ts, thread_ts: parent.ts, text: reply.text, author: REFUSED });

    expect((await postSlackInteraction(events, SECRET, payload)).status).toBe(200);
    const key = sendToAgentKey(CHANNEL, reply.ts);
    const run = await until(() => runsWith(key)[0], 'the run');
    expect(run.title).toBe('The login page 500s when the password has a & in it');
    expect(run.prompt).toContain('> The login page 500s when the password has a & in it');
    expect(run.prompt).toContain('Earlier messages in the thread');
    expect(run.prompt).toContain('> Login is broken since this morning');
    expect(run.prompt).toContain('Requested by: ada');
    // Routed by the message's channel, as a mention there would be.
    expect(run.agent_config).toMatchObject({ environment_id: 'env_web', name: 'web' });

    // Reported in the message's thread, with 👀 on the message that was sent.
    const status = await until(() => threadPosts(parent.ts)[0], 'the status message in the thread');
    expect(status.args['channel']).toBe(CHANNEL);
    await until(() => slack.reactions(CHANNEL, reply.ts).includes('eyes'), 'the eyes reaction on the sent message');

    const triggers = await triggerCount();
    expect((await postSlackInteraction(events, SECRET, payload)).status).toBe(200);
    expect(await triggerCount()).toBe(triggers);
    // Sent again by someone else: still that message's one request.
    expect((await postSlackInteraction(events, SECRET, { ...payload, trigger_id: 'another.click' })).status).toBe(200);
    expect(await triggerCount()).toBe(triggers);
    emulator.engine.drive(run.run_id, 'SUCCEEDED');
    await until(() => slack.reactions(CHANNEL, reply.ts).includes('white_check_mark'), 'the end');
    expect(runsWith(key)).toHaveLength(1);
    expect(threadPosts(parent.ts)).toHaveLength(2);
  });

  it('someone not in allowed_users gets the same private answer as for a mention, and no run starts', async () => {
    const mention = appMention({ channel: CHANNEL, user: REFUSED, text: `<@${SLACK_IDS.botUser}> fix it` });
    await postSlackEvent(events, SECRET, eventCallback(mention));
    const mentionAnswer = await slack.waitForCall('chat.postEphemeral', (call) => call.args['thread_ts'] === mention['ts']);

    const ts = nextTs();
    const payload = sendToAgentShortcut({ user: REFUSED, ts, text: 'please fix the login page' });
    expect((await postSlackInteraction(events, SECRET, payload)).status).toBe(200);
    const shortcutAnswer = await slack.waitForCall('chat.postEphemeral', (call) => call.args['thread_ts'] === ts);
    expect(shortcutAnswer.args['user']).toBe(REFUSED);
    expect(shortcutAnswer.args['text']).toBe(mentionAnswer.args['text']);
    expect(String(shortcutAnswer.args['text'])).toContain('slack.allowed_users');
    expect(slack.calls.filter((call) => call.args['timestamp'] === ts || call.args['thread_ts'] === ts).map((call) => call.method)).toEqual([
      'chat.postEphemeral',
    ]);
    expect(runsWith(sendToAgentKey(CHANNEL, ts))).toEqual([]);
  });

  it('a message without text (only files) starts nothing and is acknowledged', async () => {
    const triggers = await triggerCount();
    const response = await postSlackInteraction(events, SECRET, sendToAgentShortcut({ text: '' }));
    expect(response.status).toBe(200);
    expect(await triggerCount()).toBe(triggers);
  });
});
