import { beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { messageKey } from '../../src/slack/normalise.js';
import { sendToAgentKey } from '../../src/slack/shortcut.js';
import type { FakeSlackApi } from '../fakes/slack-api.js';
import { postSlackEvent } from '../fakes/slack-signing.js';
import { agentSessionStopped, appMention, reactionAdded, threadReply } from '../fixtures/slack/events.js';
import { byPersonOf, sharedChannelCallback, writtenFrom } from '../fixtures/slack/guests.js';
import { SLACK_IDS, nextTs } from '../fixtures/slack/ids.js';
import { answerClick, blockActionsCancel, homeStartClick, sendToAgentShortcut, startRunSubmission } from '../fixtures/slack/interactions.js';
import { type SlackBridge, useSlackBridge } from '../helpers/slack-bridge.js';

/**
 * `slack.allowed_users` and `slack.allowed_teams`: others are refused privately and nothing happens.
 * SLACK_IDS.otherUser (our workspace), the partner (a workspace `allowed_teams` lists) and the guest
 * (a Slack Connect guest of another organisation) are all in `allowed_users`: the guest is refused by
 * organisation alone. Every channel's route has the trigger emoji.
 */

let bridge: SlackBridge;
let slack: FakeSlackApi, emulator: RunningEmulator;

const { guest: GUEST, guestTeam: GUEST_TEAM, partner: PARTNER, partnerTeam: PARTNER_TEAM, otherUser: OURS, channel: CHANNEL } = SLACK_IDS;
const world = useSlackBridge({
  yaml: [
    'slack:',
    `  allowed_users: [${OURS}, ${GUEST}, ${PARTNER}]`,
    `  allowed_teams: [${PARTNER_TEAM}]`,
    '  channels:\n    "*": { trigger: { emoji: robot_face } }',
  ].join('\n'),
  resetEach: true,
});
beforeAll(() => {
  bridge = world.bridge;
  ({ slack, emulator } = bridge);
});

const runs = () => emulator.engine.list({}).runs;
const ephemeralIn = (ts: string, user: string) =>
  slack.waitForCall('chat.postEphemeral', (call) => call.args['thread_ts'] === ts && call.args['user'] === user);
/** Posts an event of a channel shared with the guest's organisation. */
const postShared = (event: Record<string, unknown> & { type: string }) =>
  postSlackEvent(bridge.events, bridge.secret, sharedChannelCallback(event)).then((response) => expect(response.status).toBe(200));
const settled = (key: string) => bridge.until(async () => (await bridge.service.store.triggers.getByKey(key))?.state === 'ignored', `${key} refused`);

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

    const allowed = appMention({ user: OURS, text: `<@${SLACK_IDS.botUser}> ship it` });
    await bridge.post(allowed);
    await slack.waitForCall('chat.postMessage', (call) => call.args['thread_ts'] === allowed['ts']);
    await bridge.until(() => runs().length === 1, 'the run');
    expect(runs().map((run) => run.prompt?.split('\n')[0])).toEqual(['ship it']);
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

describe('slack.allowed_teams: Slack Connect guests of other organisations', () => {
  it('a guest’s mention in a shared channel is refused privately; one of ours and a partner there start runs', async () => {
    const refused = appMention({ user: GUEST, ...writtenFrom(GUEST_TEAM), text: `<@${SLACK_IDS.botUser}> delete the staging database` });
    await postShared(refused);
    const answer = await ephemeralIn(refused['ts'] as string, GUEST);
    expect(answer.args['text']).toBe(
      `Sorry <@${GUEST}>, this service acts only for people of its own Slack workspace and of the organisations listed in its slack.allowed_teams.`,
    );
    expect(
      slack.calls.filter((call) => call.args['timestamp'] === refused['ts'] || call.args['thread_ts'] === refused['ts']).map((call) => call.method),
    ).toEqual(['chat.postEphemeral']);

    for (const [user, team, text] of [
      [OURS, SLACK_IDS.team, 'ship it'],
      [PARTNER, PARTNER_TEAM, 'review it'],
    ] as const) {
      await postShared(appMention({ user, ...writtenFrom(team), text: `<@${SLACK_IDS.botUser}> ${text}` }));
    }
    await bridge.until(() => runs().length === 2, 'the two runs');
    expect(
      runs()
        .map((run) => run.prompt?.split('\n')[0])
        .sort(),
    ).toEqual(['review it', 'ship it']);
  });

  it('a guest can neither steer nor stop a run: a reply, the Cancel button and the session’s stop button are refused privately', async () => {
    const ts = nextTs();
    await postShared(appMention({ ts, user: OURS, ...writtenFrom(SLACK_IDS.team), text: `<@${SLACK_IDS.botUser}> fix the build` }));
    const run = await bridge.until(() => runs()[0], 'the run');
    emulator.engine.drive(run.run_id, 'INPROGRESS');

    const reply = threadReply({ channel: CHANNEL, thread_ts: ts, user: GUEST, ...writtenFrom(GUEST_TEAM), text: 'also drop the users table' });
    await postShared(reply);
    await settled(messageKey(CHANNEL, reply['ts'] as string));
    const click = byPersonOf(blockActionsCancel({ channel: CHANNEL, thread_ts: ts, value: `slack:${CHANNEL}:${ts}` }), GUEST, GUEST_TEAM);
    expect((await bridge.interact(click)).status).toBe(200);
    // Slack's stop button names no workspace for the person: in a shared channel that is no one of ours.
    const stop = sharedChannelCallback(agentSessionStopped({ channel: CHANNEL, thread_ts: ts, user: GUEST }));
    expect((await postSlackEvent(bridge.events, bridge.secret, stop)).status).toBe(200);
    await settled(`slack:stop:${stop.event_id}`);

    const notices = () => slack.callsTo('chat.postEphemeral').filter((call) => call.args['user'] === GUEST && call.args['thread_ts'] === ts);
    await bridge.until(() => notices().length === 3, 'the three private answers');
    expect(notices().map((call) => String(call.args['text']))).toEqual([
      expect.stringContaining('slack.allowed_teams.'),
      expect.stringContaining('slack.allowed_teams.'),
      expect.stringMatching(/Slack did not say which one this came from.*mention me instead/),
    ]);
    expect(emulator.engine.followups(run.run_id)).toEqual([]);
    expect(emulator.engine.get(run.run_id)?.state).toBe('INPROGRESS');
  });

  it('a guest’s reaction, Send to agent, /agent, Start a run and Answer start nothing, and each says why privately', async () => {
    const triggers = await bridge.triggerCount();
    const message = slack.addUserMessage({ channel: CHANNEL, user: OURS, text: 'The login page 500s' });
    await postShared(reactionAdded({ user: GUEST, channel: CHANNEL, ts: message.ts, item_user: OURS }));
    expect(String((await ephemeralIn(message.ts, GUEST)).args['text'])).toContain('Slack did not say which one');

    const sent = nextTs();
    expect((await bridge.interact(byPersonOf(sendToAgentShortcut({ ts: sent, text: 'wipe the logs' }), GUEST, GUEST_TEAM))).status).toBe(200);
    expect(String((await ephemeralIn(sent, GUEST)).args['text'])).toContain('slack.allowed_teams');
    await settled(sendToAgentKey(CHANNEL, sent));

    const command = await bridge.command({ user_id: GUEST, team_id: GUEST_TEAM, text: 'status' });
    expect(((await command.json()) as { text: string }).text).toContain('slack.allowed_teams');
    // The Home tab's button opens no modal for them (answered once the listener is done), and a submission is refused in it.
    expect((await bridge.interact(byPersonOf(homeStartClick(), GUEST, GUEST_TEAM))).status).toBe(200);
    expect(slack.callsTo('views.open')).toEqual([]);
    const submitted = await bridge.interact(byPersonOf(startRunSubmission({ text: 'rotate every key' }), GUEST, GUEST_TEAM));
    expect(JSON.stringify(await submitted.json())).toContain('slack.allowed_teams');
    const thread = nextTs();
    await bridge.interact(byPersonOf(answerClick({ channel: CHANNEL, thread_ts: thread, message_ts: thread, value: 'run_1' }), GUEST, GUEST_TEAM));
    const modal = await slack.waitForCall('views.open');
    expect(JSON.stringify(modal.args['view'])).toContain('slack.allowed_teams');

    // The reaction and the shortcut are stored as refused (a re-sent one is recognised); the rest store nothing.
    expect(await bridge.triggerCount()).toBe(triggers + 2);
    expect(runs()).toEqual([]);
  });
});
