import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceLine } from '../../src/core/ports/triggers.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import type { RunningService } from '../../src/main.js';
import { messageKey } from '../../src/slack/normalise.js';
import { startFakeSlackApi, type FakeSlackApi } from '../fakes/slack-api.js';
import { postSlackEvent } from '../fakes/slack-signing.js';
import { appMention, eventCallback, threadReply, type SlackEvent } from '../fixtures/slack/events.js';
import { SLACK_IDS } from '../fixtures/slack/ids.js';
import { startBridge } from '../helpers/start-bridge.js';
import { until as waitFor } from '../helpers/until.js';

/*
 * Issue 22, point 1 with `slack.followups: all`: replies that arrive within `slack.followup_window`
 * (default 2 s) of the first go to the run as one follow-up — every reply's text once, in order, each
 * reply acknowledged with ✉️. The store does the gathering (core/intake/followup-batch.ts); here the
 * whole service, signed events, the fake Slack Web API and the emulator show it end to end.
 */

const SECRET = 'followup-window-secret-0123456789';
const BOT_TOKEN = 'xoxb-0000-1111-followup-window';
const API_KEY = 'followup-window-run-api-key';
const CHANNEL = SLACK_IDS.channel;
let slack: FakeSlackApi;
let emulator: RunningEmulator;
let service: RunningService;
let events: string;

beforeAll(async () => {
  slack = await startFakeSlackApi({ token: BOT_TOKEN });
  emulator = await startEmulator({ apiKey: API_KEY, port: 0, manual: true });
  ({ service } = await startBridge({
    agentApi: { baseUrl: emulator.baseUrl, apiKey: API_KEY },
    env: { SLACK_BOT_TOKEN: BOT_TOKEN, SLACK_SIGNING_SECRET: SECRET, SLACK_API_URL: slack.url },
    yaml: 'slack:\n  followups: all\n',
  }));
  events = `${service.url}/slack/events`;
});
afterAll(async () => {
  await service.stop();
  await emulator.close();
  await slack.close();
});

const until = <T>(find: () => T | undefined | false | Promise<T | undefined | false>, what: string) => waitFor(find, what, 15_000);

async function say(event: SlackEvent): Promise<void> {
  expect((await postSlackEvent(events, SECRET, eventCallback(event))).status).toBe(200);
}

describe('followups: all — a burst of replies goes as one follow-up', () => {
  it('five replies in a row → every text reaches the run once, in order, in at most two follow-ups, each acknowledged', async () => {
    const start = appMention({ channel: CHANNEL, text: `<@${SLACK_IDS.botUser}> refactor the importer` });
    await say(start);
    const threadTs = start['ts'] as string;
    const run = await until(() => emulator.engine.list({}).runs.find((item) => item.prompt?.includes(referenceLine(messageKey(CHANNEL, threadTs)))), 'the run');

    const texts = ['one: keep the CSV path', 'two: mind the BOM', 'three: no new deps', 'four: and the docs', 'five: that is all'];
    const replies = texts.map((text) => threadReply({ channel: CHANNEL, thread_ts: threadTs, text }));
    for (const reply of replies) await say(reply);
    // A re-sent event (Slack's retry) is the same reply, not a sixth.
    await say(replies[2] as SlackEvent);

    const sent = () => emulator.engine.followups(run.run_id).map((entry) => entry.message);
    await until(() => texts.every((text) => sent().some((message) => message.includes(text))), 'every reply at the run');
    const all = sent().join('\n\n');
    expect(all.split('\n\n')).toEqual(texts);
    expect(sent().length).toBeLessThanOrEqual(2);

    const replyTs = replies.map((reply) => reply['ts'] as string);
    await until(
      () => replyTs.every((ts) => slack.callsTo('reactions.add').some((call) => call.args['timestamp'] === ts && call.args['name'] === 'incoming_envelope')),
      '✉️ on every reply',
    );
    const triggers = await service.store.triggers.countByState();
    expect(triggers.pending + triggers.working).toBe(0);
  });
});
