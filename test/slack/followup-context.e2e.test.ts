import { beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { FakeSlackApi } from '../fakes/slack-api.js';
import { appMention, threadReply, type SlackEvent } from '../fixtures/slack/events.js';
import { SLACK_IDS } from '../fixtures/slack/ids.js';
import { type SlackBridge, useSlackBridge } from '../helpers/slack-bridge.js';

/*
 * Follow-ups in Slack: with `followups: mentions`, a mention in a run's thread is a follow-up
 * that carries, quoted, the replies written since the agent's previous turn — and only those.
 */

const CHANNEL = SLACK_IDS.channel;
let bridge: SlackBridge;
let slack: FakeSlackApi, emulator: RunningEmulator;

const world = useSlackBridge({
  users: { [SLACK_IDS.user]: { display_name: 'ada' }, [SLACK_IDS.otherUser]: { display_name: 'grace' } },
  yaml: 'slack:\n  followups: mentions\n',
});
beforeAll(() => {
  bridge = world.bridge;
  ({ slack, emulator } = bridge);
});

const until: SlackBridge['until'] = (find, what) => bridge.until(find, what);

/** A message people write in the thread: Slack has it (history), and the bot hears its event. */
async function say(event: SlackEvent): Promise<void> {
  slack.addUserMessage({
    channel: event['channel'] as string,
    user: event['user'] as string,
    text: event['text'] as string,
    ts: event['ts'] as string,
    ...(event['thread_ts'] !== undefined && { thread_ts: event['thread_ts'] as string }),
  });
  expect((await bridge.post(event)).status).toBe(200);
}

describe('followups: mentions — everything since the last turn', () => {
  it('three plain replies then a mention → one follow-up quoting the three in order; the next one only what came after', async () => {
    const start = appMention({ channel: CHANNEL, text: `<@${SLACK_IDS.botUser}> refactor the importer` });
    await say(start);
    const threadTs = start['ts'] as string;
    const run = await until(() => bridge.runFor(CHANNEL, threadTs), 'the run');
    await until(() => slack.callsTo('chat.postMessage').some((call) => call.args['thread_ts'] === threadTs), 'the status message');

    await say(threadReply({ channel: CHANNEL, thread_ts: threadTs, text: 'first: keep the CSV path' }));
    await say(threadReply({ channel: CHANNEL, thread_ts: threadTs, user: SLACK_IDS.otherUser, text: 'second: &amp; mind &lt;the&gt; BOM' }));
    await say(threadReply({ channel: CHANNEL, thread_ts: threadTs, text: 'third: no new deps' }));
    await say(appMention({ channel: CHANNEL, thread_ts: threadTs, text: `<@${SLACK_IDS.botUser}> please take these into account` }));
    await until(() => emulator.engine.followups(run.run_id).length === 1, 'the first follow-up');
    const first = emulator.engine.followups(run.run_id)[0]?.message ?? '';
    expect(first.startsWith('please take these into account')).toBe(true);
    const quoted = first.slice(first.indexOf('--- Slack messages since your last turn'));
    expect(quoted.split('\n').slice(1, -1)).toEqual([
      '[ada]',
      '> first: keep the CSV path',
      '[grace]',
      '> second: & mind <the> BOM',
      '[ada]',
      '> third: no new deps',
    ]);
    // Plain replies are context, not follow-ups of their own.
    expect(emulator.engine.followups(run.run_id)).toHaveLength(1);

    await say(threadReply({ channel: CHANNEL, thread_ts: threadTs, text: 'fourth: and the docs' }));
    await say(appMention({ channel: CHANNEL, thread_ts: threadTs, text: `<@${SLACK_IDS.botUser}> one more` }));
    await until(() => emulator.engine.followups(run.run_id).length === 2, 'the second follow-up');
    const second = emulator.engine.followups(run.run_id)[1]?.message ?? '';
    expect(second).toContain('> fourth: and the docs');
    expect(second).not.toContain('third');
    expect(second).not.toContain('please take these');
  });
});
