import { beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { RunningService } from '../../src/main.js';
import type { FakeSlackApi, SlackCall } from '../fakes/slack-api.js';
import { appMention } from '../fixtures/slack/events.js';
import { SLACK_IDS } from '../fixtures/slack/ids.js';
import { answerClick, answerSubmission } from '../fixtures/slack/interactions.js';
import { type SlackBridge, useSlackBridge } from '../helpers/slack-bridge.js';

/*
 * Answering a BLOCKED run in place, end to end: the real Bolt on the running
 * service receives signed clicks and modal submissions, the fake Slack Web API records every call,
 * the emulator plays the run API. `slack.allowed_users` lists SLACK_IDS.user only.
 */

const CHANNEL = SLACK_IDS.channel;
const ALLOWED = SLACK_IDS.user;
const REFUSED = SLACK_IDS.otherUser;
const QUESTION = 'Which database should I migrate first: <orders> or users?';
let bridge: SlackBridge;
let slack: FakeSlackApi, emulator: RunningEmulator, service: RunningService;

const world = useSlackBridge({ yaml: `tracker:\n  interval: 1s\nslack:\n  allowed_users: [${ALLOWED}]\n`, resetEach: true });
beforeAll(() => {
  bridge = world.bridge;
  ({ slack, emulator, service } = bridge);
});

const until: SlackBridge['until'] = (find, what) => bridge.until(find, what);
const triggerCount = () => bridge.triggerCount();
const tsOf = (call: SlackCall) => (call.response as unknown as { ts: string }).ts;
type Button = { action_id?: string; value?: string; text?: { text: string } };
const buttonsOf = (call: SlackCall) =>
  ((call.args['blocks'] ?? []) as Array<{ type: string; elements?: Button[] }>).flatMap((block) => (block.type === 'actions' ? (block.elements ?? []) : []));
const opened = (from: number) => slack.callsTo('views.open').slice(from);
const viewOf = (call: SlackCall) => call.args['view'] as { callback_id?: string; private_metadata?: string; submit?: unknown; blocks: unknown[] };

/** A mention in the channel whose run is then BLOCKED with a question; resolves to the run and its announcement. */
async function blockedRun(request: string) {
  const mention = appMention({ channel: CHANNEL, user: ALLOWED, text: `<@${SLACK_IDS.botUser}> ${request}` });
  expect((await bridge.post(mention)).status).toBe(200);
  const threadTs = mention['ts'] as string;
  const run = await until(() => bridge.runFor(CHANNEL, threadTs), 'the run');
  emulator.engine.drive(run.run_id, 'BLOCKED', { status_message: QUESTION });
  const announcement = await until(
    () => slack.callsTo('chat.postMessage').find((call) => call.args['thread_ts'] === threadTs && buttonsOf(call).some((b) => b.action_id === 'answer_run')),
    'the BLOCKED announcement with its Answer button',
  );
  return { run, threadTs, announcement, messageTs: tsOf(announcement) };
}

/** Clicks Answer and returns the modal views.open was given. */
async function clickAnswer(user: string, click: { message_ts: string; thread_ts: string; value: string }) {
  const before = slack.callsTo('views.open').length;
  expect((await bridge.interact(answerClick({ user, channel: CHANNEL, ...click }))).status).toBe(200);
  return viewOf(await until(() => opened(before)[0], 'views.open'));
}

describe('the Answer button on a BLOCKED announcement', () => {
  it('shows the question and the button; the modal’s answer is one follow-up, acknowledged in the thread; a re-sent submission sends nothing', async () => {
    const { run, threadTs, announcement, messageTs } = await blockedRun('Migrate the databases');
    const blocks = JSON.stringify(announcement.args['blocks']);
    expect(blocks).toContain('>Which database should I migrate first: &lt;orders&gt; or users?');
    expect(blocks).toContain('Reply in this thread to answer.');
    const button = buttonsOf(announcement).find((b) => b.action_id === 'answer_run');
    expect(button).toMatchObject({ value: run.run_id, text: { text: 'Answer' } });

    const modal = await clickAnswer(ALLOWED, { message_ts: messageTs, thread_ts: threadTs, value: run.run_id });
    expect(modal.callback_id).toBe('answer_run');
    expect(JSON.stringify(modal.blocks)).toContain('"block_id":"answer"');
    const metadata = modal.private_metadata ?? '';

    const triggers = await triggerCount();
    const submission = answerSubmission({ user: ALLOWED, text: '  Orders first, then users.  ', privateMetadata: metadata });
    const response = await bridge.interact(submission);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('');
    await until(() => emulator.engine.followups(run.run_id).length === 1, 'the follow-up');
    expect(emulator.engine.followups(run.run_id)[0]?.message).toBe('Orders first, then users.');
    // Acknowledged where it was given: ✉️ on the announcement whose button was pressed.
    await until(() => slack.reactions(CHANNEL, messageTs).includes('incoming_envelope'), 'the envelope on the announcement');

    // Slack re-sends the same submission (same view id): nothing more is stored or sent.
    expect((await bridge.interact(submission)).status).toBe(200);
    expect(await triggerCount()).toBe(triggers + 1);
    const viewId = (submission['view'] as { id: string }).id;
    await until(async () => (await service.store.triggers.getByKey(`slack:answer:${viewId}`))?.state === 'done', 'the answer worked');
    expect(emulator.engine.followups(run.run_id)).toHaveLength(1);
  });

  it('an empty answer is shown under the field and sends nothing', async () => {
    const { run, threadTs, messageTs } = await blockedRun('Rotate the keys');
    const modal = await clickAnswer(ALLOWED, { message_ts: messageTs, thread_ts: threadTs, value: run.run_id });
    const triggers = await triggerCount();
    const response = await bridge.interact(answerSubmission({ user: ALLOWED, text: ' \n ', privateMetadata: modal.private_metadata ?? '' }));
    expect(await response.json()).toEqual({ response_action: 'errors', errors: { answer: 'Write your answer to the agent.' } });
    expect(await triggerCount()).toBe(triggers);
  });

  it('someone outside allowed_users is refused privately (in the modal) and nothing is sent', async () => {
    const { run, threadTs, messageTs } = await blockedRun('Pick a logging library');
    const refusal = await clickAnswer(REFUSED, { message_ts: messageTs, thread_ts: threadTs, value: run.run_id });
    expect(refusal.callback_id).toBeUndefined();
    expect(refusal.submit).toBeUndefined();
    expect(JSON.stringify(refusal.blocks)).toContain('slack.allowed_users');

    // A submission of theirs (a modal opened before they were left out) is refused under the field.
    const allowedModal = await clickAnswer(ALLOWED, { message_ts: messageTs, thread_ts: threadTs, value: run.run_id });
    const triggers = await triggerCount();
    const response = await bridge.interact(answerSubmission({ user: REFUSED, text: 'use pino', privateMetadata: allowedModal.private_metadata ?? '' }));
    const answer = (await response.json()) as { response_action: string; errors: { answer: string } };
    expect(answer.response_action).toBe('errors');
    expect(answer.errors.answer).toContain('slack.allowed_users');
    expect(await triggerCount()).toBe(triggers);
    expect(emulator.engine.followups(run.run_id)).toEqual([]);
    expect(slack.callsTo('chat.postEphemeral').filter((call) => call.args['user'] === REFUSED && call.args['thread_ts'] === threadTs)).toEqual([]);
  });

  it('a button naming a run this service does not know is refused privately; nothing is stored', async () => {
    const { threadTs, messageTs } = await blockedRun('Clean up the feature flags');
    const refusal = await clickAnswer(ALLOWED, { message_ts: messageTs, thread_ts: threadTs, value: 'run_forged_0001' });
    expect(JSON.stringify(refusal.blocks)).toContain('I do not know the run run_forged_0001');
    const metadata = JSON.stringify({ runId: 'run_forged_0001', channel: CHANNEL, threadTs, messageTs });
    const triggers = await triggerCount();
    const response = await bridge.interact(answerSubmission({ user: ALLOWED, text: 'yes', privateMetadata: metadata }));
    expect(JSON.stringify(await response.json())).toContain('I do not know the run run_forged_0001');
    expect(await triggerCount()).toBe(triggers);
  });

  it('goes to the run the button names, even after a newer run started in the thread, and still when it no longer waits', async () => {
    const { run, threadTs, messageTs } = await blockedRun('Upgrade the framework');
    const modal = await clickAnswer(ALLOWED, { message_ts: messageTs, thread_ts: threadTs, value: run.run_id });
    const newer = appMention({ channel: CHANNEL, user: ALLOWED, thread_ts: threadTs, text: `<@${SLACK_IDS.botUser}> new Write the changelog` });
    await bridge.post(newer);
    const second = await until(() => emulator.engine.list({}).runs.find((r) => r.title === 'Write the changelog'), 'the newer run');
    // The first run went on without an answer: answering it is still sent (a follow-up continues a run).
    emulator.engine.drive(run.run_id, 'INPROGRESS');
    await until(async () => (await service.store.trackedRuns.get(run.run_id))?.state === 'INPROGRESS', 'the run seen working');

    await bridge.interact(answerSubmission({ user: ALLOWED, text: 'Go with version 5.', privateMetadata: modal.private_metadata ?? '' }));
    await until(() => emulator.engine.followups(run.run_id).length === 1, 'the follow-up to the first run');
    expect(emulator.engine.followups(run.run_id)[0]?.message).toBe('Go with version 5.');
    expect(emulator.engine.followups(second.run_id)).toEqual([]);
  });
});
