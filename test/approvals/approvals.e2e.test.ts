/**
 * Approvals end to end through Slack: the real service, real Bolt receiving signed
 * requests, the fake Slack Web API and the emulator. A mention in a channel whose route needs approval
 * starts nothing: the thread gets the question with Approve and Reject, the approver a direct message;
 * only an approver's click decides, once; unanswered, it expires on the service's (test) clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../../src/core/ports/clock.js';
import type { FakeLinearApi } from '../fakes/linear-api.js';
import { LINEAR_IDS } from '../fixtures/linear/index.js';
import { blockActionsCancel } from '../fixtures/slack/interactions.js';
import { LINEAR_KEY, labelAdded, newIssue, startFakeLinearApi } from '../linear/linear-harness.js';
import { SLACK_IDS } from '../fixtures/slack/ids.js';
import { callText, startSlackBridge, tsOf, type SlackBridge } from '../helpers/slack-bridge.js';

const LEAD = 'U0LEAD0001';
const CHANNEL = SLACK_IDS.channel;
const MARKER = 'pelican-marker-42';
/** Where a Linear label's requests are asked for approval. */
const ASK_CHANNEL = 'C0APPROVE1';
const { agent, bug } = LINEAR_IDS.labels;
const clock = new TestClock(Date.now());
let bridge: SlackBridge;
let linear: FakeLinearApi;

beforeAll(async () => {
  linear = await startFakeLinearApi({ authorization: LINEAR_KEY, labels: [agent, bug] });
  bridge = await startSlackBridge({
    clock,
    linear,
    yaml: [
      `slack:`,
      `  channels:`,
      `    ${CHANNEL}: { config: { name: prod }, approval: { approvers: [${LEAD}], expires: 1h } }`,
      `linear:`,
      `  labels:`,
      `    agent: { config: { name: issues }, slack_channel: ${ASK_CHANNEL}, approval: { approvers: [${LEAD}] } }`,
      '',
    ].join('\n'),
  });
});
afterAll(async () => {
  await bridge?.stop();
  await linear?.close();
});

/** A click on Approve or Reject of the question posted in `thread` (of `channel`), by `user`. */
function click(actionId: 'approve_run' | 'reject_run', value: string, user: string, thread: string, channel: string = CHANNEL): Record<string, unknown> {
  const base = blockActionsCancel({ user, channel, thread_ts: thread });
  const button = { type: 'button', action_id: actionId, text: { type: 'plain_text', text: actionId === 'approve_run' ? 'Approve' : 'Reject' }, value };
  return { ...base, actions: [{ ...button, block_id: 'approval_actions', action_ts: `${Date.now() / 1000}` }] };
}

/** The question posted in the thread, and its button's value (the held request's id). */
async function questionIn(thread: string): Promise<string> {
  const post = await bridge.until(() => bridge.threadPosts(thread).find((call) => callText(call).includes('approve_run')), 'the approval question');
  const raw = post.args['blocks'];
  const blocks = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Array<{ elements?: Array<{ action_id?: string; value?: string }> }>;
  const value = blocks.flatMap((block) => block.elements ?? []).find((element) => element.action_id === 'approve_run')?.value;
  expect(value).toBeTruthy();
  return value ?? '';
}

/** The runs whose prompt asks `words` (with the marker). */
const runsAsking = (words: string) => bridge.emulator.engine.list({}).runs.filter((run) => run.prompt?.includes(`${words} ${MARKER}`));
const audit = async (act: string) => bridge.service.store.audit.list({ limit: 50, act: act as never });

describe('a channel whose route needs approval', () => {
  it('holds a mention; a stranger is told privately; two approvers’ clicks at once start one run as if just asked', async () => {
    const thread = await bridge.mention(`deploy the ${MARKER} fix to prod`);
    const id = await questionIn(thread);
    // The approver is told directly, with a link to the thread.
    const dm = await bridge.until(() => bridge.slack.callsTo('chat.postMessage').find((call) => call.args['channel'] === LEAD), 'the approver’s message');
    expect(callText(dm)).toContain('approve_run');
    expect(callText(dm)).toContain('Open the thread');
    expect(bridge.emulator.engine.list({}).runs).toHaveLength(0);
    // The request's status message says what it waits for, with no Cancel button (nothing runs yet).
    const status = bridge.threadPosts(thread).find((call) => callText(call).includes('cancel_run'));
    const waiting = await bridge.until(
      () => bridge.updatesOf(tsOf(status!)).find((call) => callText(call).includes('Waiting for approval')),
      'the status edited',
    );
    expect(callText(waiting)).not.toContain('cancel_run');

    expect((await bridge.interact(click('approve_run', id, SLACK_IDS.otherUser, thread))).status).toBe(200);
    const told = await bridge.until(
      () => bridge.slack.callsTo('chat.postEphemeral').find((call) => call.args['user'] === SLACK_IDS.otherUser),
      'the stranger told privately',
    );
    expect(String(told.args['text'])).toContain(`<@${LEAD}>`);
    expect((await bridge.service.store.approvals.get(id))?.state).toBe('held');

    const clicks = await Promise.all([1, 2, 3].map(() => bridge.interact(click('approve_run', id, LEAD, thread))));
    expect(clicks.map((answer) => answer.status)).toEqual([200, 200, 200]);
    const run = await bridge.until(() => runsAsking('deploy the').at(0), 'the approved run');
    expect(run.prompt).toContain(MARKER);
    expect(run.agent_config?.name).toBe('prod');
    await bridge.until(() => bridge.threadPosts(thread).find((call) => callText(call).includes(`Approved by <@${LEAD}>`)), 'approved, said in the thread');
    // The second and third click found it decided: still one run, and the approver is told privately.
    await bridge.until(() => bridge.slack.callsTo('chat.postEphemeral').find((call) => call.args['user'] === LEAD), 'the late click told');
    expect(runsAsking('deploy the')).toHaveLength(1);
    // The run is shown by the status message the request got when it was received: edited, not posted again.
    const statuses = bridge.threadPosts(thread).filter((call) => callText(call).includes('cancel_run'));
    expect(statuses).toHaveLength(1);
    await bridge.until(
      () => bridge.updatesOf(tsOf(statuses[0]!)).find((call) => callText(call).includes(run.run_id)),
      'the status message edited with the run',
    );
    expect((await audit('request.held')).map((entry) => [entry.personId, entry.detail?.['route']])).toEqual([[SLACK_IDS.user, 'prod']]);
    expect((await audit('request.approved')).map((entry) => entry.personId)).toEqual([LEAD]);
    await bridge.until(async () => (await audit('run.started')).length === 1, 'the start recorded');
  });

  it('a rejection tells the requester who rejected it, and nothing runs', async () => {
    const thread = await bridge.mention(`drop the ${MARKER} table`);
    const id = await questionIn(thread);
    await bridge.interact(click('reject_run', id, LEAD, thread));
    const said = await bridge.until(() => bridge.threadPosts(thread).find((call) => callText(call).includes('was rejected by')), 'the rejection');
    expect(callText(said)).toContain(`<@${SLACK_IDS.user}>`);
    expect(callText(said)).toContain(`rejected by <@${LEAD}>`);
    const status = bridge.threadPosts(thread).find((call) => callText(call).includes('cancel_run'));
    await bridge.until(() => bridge.updatesOf(tsOf(status!)).find((call) => callText(call).includes('Rejected')), 'the status message says rejected');
    expect(runsAsking('drop the')).toEqual([]);
    expect((await bridge.service.store.approvals.get(id))?.state).toBe('rejected');
    expect((await audit('request.rejected')).map((entry) => entry.personId)).toEqual([LEAD]);
  });

  it('a Linear label on an approval route waits too: the buttons in its Slack channel’s thread, the issue told; Approve starts it', async () => {
    const before = bridge.slack
      .callsTo('chat.postMessage')
      .filter((call) => call.args['channel'] === ASK_CHANNEL && call.args['thread_ts'] === undefined).length;
    const { issue, data } = newIssue(linear, `Upgrade the ${MARKER} database`);
    expect(await bridge.deliverLinear(labelAdded(agent, [bug], data))).toBe(200);
    const top = await bridge.until(
      () => bridge.slack.callsTo('chat.postMessage').filter((call) => call.args['channel'] === ASK_CHANNEL && call.args['thread_ts'] === undefined)[before],
      'the request’s message in the Slack channel',
    );
    const thread = tsOf(top);
    const id = await questionIn(thread);
    await bridge.until(() => linear.comments(issue.identifier).find((comment) => comment.body.includes('waits for approval')), 'the issue told');
    expect(bridge.emulator.engine.list({}).runs.filter((run) => run.title?.startsWith(`${issue.identifier}:`))).toEqual([]);

    await bridge.interact(click('approve_run', id, LEAD, thread, ASK_CHANNEL));
    const run = await bridge.until(
      () => bridge.emulator.engine.list({}).runs.find((item) => item.title?.startsWith(`${issue.identifier}:`)),
      'the approved run',
    );
    expect(run.agent_config?.name).toBe('issues');
    // Carried by the thread the question was asked in: no second message in the channel.
    await bridge.until(() => bridge.updatesOf(thread).find((call) => callText(call).includes(run.run_id)), 'the thread’s status message edited');
    expect(
      bridge.slack.callsTo('chat.postMessage').filter((call) => call.args['channel'] === ASK_CHANNEL && call.args['thread_ts'] === undefined),
    ).toHaveLength(before + 1);
    const held = (await audit('request.held')).find((entry) => entry.surface === 'linear');
    expect(held?.detail).toMatchObject({ route: 'issues' });
  });

  // Last but one: the service’s clock is then an hour ahead (a Linear delivery's timestamp would look stale).
  it('expires unanswered after approval.expires on the service’s clock, and the requester is told', async () => {
    const thread = await bridge.mention(`rotate the ${MARKER} keys`);
    const id = await questionIn(thread);
    await clock.advance(30 * 60_000);
    expect((await bridge.service.store.approvals.get(id))?.state).toBe('held');
    await clock.advance(31 * 60_000);
    await bridge.until(() => bridge.threadPosts(thread).find((call) => callText(call).includes('expired')), 'the expiry said');
    expect((await bridge.service.store.approvals.get(id))?.state).toBe('expired');
    const status = bridge.threadPosts(thread).find((call) => callText(call).includes('cancel_run'));
    await bridge.until(
      () => bridge.updatesOf(tsOf(status!)).find((call) => callText(call).includes('Expired without approval')),
      'the status message says expired',
    );
    // Approving after the expiry starts nothing.
    await bridge.interact(click('approve_run', id, LEAD, thread));
    await bridge.until(
      () => bridge.slack.callsTo('chat.postEphemeral').find((call) => String(call.args['text']).includes('expired before')),
      'the late approver told',
    );
    expect(runsAsking('rotate the')).toEqual([]);
    expect((await audit('request.expired')).map((entry) => entry.personId)).toEqual([SLACK_IDS.user]);
  });

  it('keeps every word people wrote out of the audit trail', async () => {
    const entries = await bridge.service.store.audit.list({ limit: 100 });
    expect(entries.length).toBeGreaterThan(5);
    expect(JSON.stringify(entries)).not.toContain(MARKER);
  });
});
