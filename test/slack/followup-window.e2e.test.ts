import { beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { RunningService } from '../../src/main.js';
import type { FakeSlackApi } from '../fakes/slack-api.js';
import { appMention, threadReply, type SlackEvent } from '../fixtures/slack/events.js';
import { SLACK_IDS } from '../fixtures/slack/ids.js';
import { type SlackBridge, useSlackBridge } from '../helpers/slack-bridge.js';

/*
 * Follow-ups with `slack.followups: all`: replies that arrive within `slack.followup_window`
 * (default 2 s) of the first go to the run as one follow-up — every reply's text once, in order, each
 * reply acknowledged with ✉️. The store does the gathering (core/intake/followup-batch.ts); here the
 * whole service, signed events, the fake Slack Web API and the emulator show it end to end.
 */

const CHANNEL = SLACK_IDS.channel;
let bridge: SlackBridge;
let slack: FakeSlackApi, emulator: RunningEmulator, service: RunningService;

const world = useSlackBridge({ yaml: 'slack:\n  followups: all\n' });
beforeAll(() => {
  bridge = world.bridge;
  ({ slack, emulator, service } = bridge);
});

const until: SlackBridge['until'] = (find, what) => bridge.until(find, what, 15_000);

async function say(event: SlackEvent): Promise<void> {
  expect((await bridge.post(event)).status).toBe(200);
}

describe('followups: all — a burst of replies goes as one follow-up', () => {
  it('five replies in a row → every text reaches the run once, in order, in at most two follow-ups, each acknowledged', async () => {
    const start = appMention({ channel: CHANNEL, text: `<@${SLACK_IDS.botUser}> refactor the importer` });
    await say(start);
    const threadTs = start['ts'] as string;
    const run = await until(() => bridge.runFor(CHANNEL, threadTs), 'the run');

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
