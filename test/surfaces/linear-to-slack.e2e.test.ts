import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { RunningService } from '../../src/main.js';
import type { FakeLinearApi } from '../fakes/linear-api.js';
import type { FakeSlackApi } from '../fakes/slack-api.js';
import { LINEAR_IDS, type LinearEnvelopeFixture } from '../fixtures/linear/index.js';
import { appMention, threadReply } from '../fixtures/slack/events.js';
import { SLACK_IDS, nextTs } from '../fixtures/slack/ids.js';
import { answerClick, answerSubmission, blockActionsCancel } from '../fixtures/slack/interactions.js';
import { runCliInProcess } from '../helpers/cli-context.js';
import { commentOn, labelAdded, labelRemoved, newIssue, quiet } from '../linear/linear-harness.js';
import { consoleHttp, signInWithToken } from '../helpers/console-http.js';
import { AGENT_API_KEY, callText, type SlackBridge, tsOf } from '../helpers/slack-bridge.js';
import { useSlackLinearWorld } from '../helpers/tracker-world.js';

/*
 * One run, two places (Linear → Slack): a Linear label whose route names `slack_channel`
 * starts one run that the issue and a new Slack thread both carry. The real service with the real
 * Bolt and Linear SDK, the fake Slack Web API and fake Linear GraphQL recording every call, the
 * emulator as the run API.
 */

const CONSOLE_TOKEN = 'surfaces-console-admin-token-0123456789';
const CHANNEL = SLACK_IDS.channel;
const { agent, bug } = LINEAR_IDS.labels;

const world = useSlackLinearWorld({
  yaml: `tracker:\n  interval: 1s\nlinear:\n  labels:\n    agent: { config: { name: web }, slack_channel: ${CHANNEL} }\n`,
  env: { CONSOLE_ADMIN_TOKEN: CONSOLE_TOKEN },
});
let bridge: SlackBridge;
let slack: FakeSlackApi, fake: FakeLinearApi, emulator: RunningEmulator, service: RunningService, cwd: string;
beforeAll(() => {
  ({ fake, bridge } = world);
  ({ slack, emulator, service, cwd } = bridge);
});

const until: SlackBridge['until'] = (find, what) => bridge.until(find, what);
const deliver = (payload: LinearEnvelopeFixture) => bridge.deliverLinear(payload);
const slackEvent = async (event: Record<string, unknown>) => (await bridge.post(event as ReturnType<typeof appMention>)).status;

const text = callText;
const topLevelPosts = () => slack.callsTo('chat.postMessage').filter((call) => call.args['channel'] === CHANNEL && call.args['thread_ts'] === undefined);
const threadPosts = (ts: string) => bridge.threadPosts(ts);
const updatesOf = (ts: string) => bridge.updatesOf(ts);
const bodies = (identifier: string) => fake.comments(identifier).map((comment) => comment.body);

/** A console page as the admin sees it (signed in through the form, as a browser would). */
async function consolePage(path: string): Promise<string> {
  const http = consoleHttp(() => service.url);
  const session = await signInWithToken(http, CONSOLE_TOKEN, '/console/runs');
  const page = await http.get(path, session);
  expect(page.status).toBe(200);
  return page.text();
}

/** An issue labelled `agent`: its run, and the top-level Slack message that carries it. */
async function labelledIssue(title: string) {
  const before = topLevelPosts().length;
  const { issue, data } = newIssue(fake, title);
  expect(await deliver(labelAdded(agent, [bug], data))).toBe(200);
  const run = await until(() => emulator.engine.list({}).runs.find((r) => r.title?.startsWith(`${issue.identifier}:`)), 'the run');
  const top = await until(() => topLevelPosts()[before], 'the top-level Slack message');
  return { issue, data, run, top, thread: tsOf(top) };
}

describe('a Linear label with slack_channel: one run, carried by the issue and a Slack thread', () => {
  it('one top-level message with title, issue link and who added the label; each state once per place; a Slack reply steers; removing the label stops it and both say so', async () => {
    const { issue, data, run, top, thread } = await labelledIssue('Fix the flaky login test');
    expect(emulator.engine.list({}).runs.filter((r) => r.title?.startsWith(`${issue.identifier}:`))).toHaveLength(1);
    expect(text(top)).toContain(`${issue.identifier}: Fix the flaky login test`);
    expect(text(top)).toContain(`<${issue.url}|${issue.identifier}>`);
    expect(text(top)).toContain(`asked by ${LINEAR_IDS.user.name}`);
    expect(text(top)).toContain('cancel_run');
    const start = await until(() => fake.comments(issue.identifier)[0], 'the Linear start comment');

    emulator.engine.drive(run.run_id, 'INPROGRESS');
    await until(() => updatesOf(thread).some((call) => /in progress/i.test(text(call)) && text(call).includes(run.run_id)), 'the Slack INPROGRESS edit');
    // The edit keeps where the run came from.
    expect(text(updatesOf(thread).at(-1) ?? { args: {} })).toContain(`<${issue.url}|${issue.identifier}>`);
    await until(
      () =>
        fake
          .comments(issue.identifier)
          .find((c) => c.id === start.id)
          ?.body.includes('INPROGRESS'),
      'the Linear INPROGRESS edit',
    );

    emulator.engine.drive(run.run_id, 'BLOCKED', { status_message: 'Which browser?' });
    await until(() => threadPosts(thread).some((call) => text(call).includes('Which browser?')), 'BLOCKED in the Slack thread');
    await until(() => bodies(issue.identifier).some((body) => body.includes('Which browser?')), 'BLOCKED on the issue');

    // A reply in the Slack thread is a follow-up of the same run, acknowledged where it was written.
    const reply = threadReply({ channel: CHANNEL, thread_ts: thread, text: 'Chrome only, please', user: SLACK_IDS.user });
    expect(await slackEvent(reply)).toBe(200);
    await until(() => emulator.engine.followups(run.run_id).some((f) => f.message.includes('Chrome only, please')), 'the follow-up');
    await until(
      () => slack.callsTo('reactions.add').some((call) => call.args['timestamp'] === reply['ts'] && call.args['name'] === 'incoming_envelope'),
      'the ✉️ on the reply',
    );
    // The issue learns that a follow-up came and from whom, not what it said.
    const heard = await until(() => bodies(issue.identifier).find((body) => body.includes('follow-up from Slack')), 'the note on the issue');
    expect(heard).toContain(`Slack user ${SLACK_IDS.user}`);
    expect(heard).not.toContain('Chrome only');

    // An @agent comment on the issue reaches the same run; the Slack thread hears of it, in the thread.
    expect(await deliver(commentOn(issue, '@agent also run it on Firefox'))).toBe(200);
    await until(() => emulator.engine.followups(run.run_id).some((f) => f.message.includes('also run it on Firefox')), 'the Linear follow-up');
    const note = await until(() => threadPosts(thread).find((call) => text(call).includes('follow-up from Linear')), 'the note in the Slack thread');
    expect(text(note)).not.toContain('Firefox');

    emulator.engine.drive(run.run_id, 'INPROGRESS');
    await until(() => updatesOf(thread).filter((call) => /in progress/i.test(text(call))).length >= 2, 'the second INPROGRESS edit');
    expect(await deliver(labelRemoved(agent, [bug], data))).toBe(200);
    await until(() => threadPosts(thread).some((call) => /Cancelled by/.test(text(call))), 'CANCELLED in the Slack thread');
    const cancelled = await until(() => bodies(issue.identifier).find((body) => /Cancelled by/i.test(body)), 'CANCELLED on the issue');
    expect(cancelled).toContain(LINEAR_IDS.user.name);
    expect(text(threadPosts(thread).find((call) => /Cancelled by/.test(text(call))) ?? { args: {} })).toContain(LINEAR_IDS.user.name);
    await quiet(service);

    // Nothing doubled: one top-level message; in the thread BLOCKED, the note, CANCELLED; on the issue
    // the start comment, BLOCKED, the note, CANCELLED.
    expect(topLevelPosts().filter((call) => text(call).includes(issue.identifier))).toHaveLength(1);
    expect(threadPosts(thread)).toHaveLength(3);
    expect(fake.comments(issue.identifier)).toHaveLength(4);
    expect(emulator.engine.followups(run.run_id)).toHaveLength(2);

    // `runs get` names every place of the run.
    const env = { AGENT_API_BASE_URL: emulator.baseUrl, AGENT_API_KEY, DATABASE_PATH: join(cwd, 'bridge.db') };
    const shown = await runCliInProcess(['runs', 'get', run.run_id], env, cwd);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`Linear issue ${issue.id}`);
    expect(shown.stdout).toContain(`Slack channel ${CHANNEL} (a thread of its own)`);
    const json = await runCliInProcess(['runs', 'get', run.run_id, '--json'], env, cwd);
    expect((JSON.parse(json.stdout) as { places: string[] }).places).toEqual([`linear:${issue.id}`, `slack:${CHANNEL}`]);

    // So does the console's page of the run.
    const page = await consolePage(`/console/run?id=${run.run_id}`);
    const places = /data-testid="places">([\s\S]*?)<\/dd>/.exec(page)?.[1] ?? '';
    expect(places).toContain(`Linear issue ${issue.id}`);
    expect(places).toContain(`href="https://slack.com/archives/${CHANNEL}"`);
  });

  it('@agent stop in the Slack thread stops the run the issue carries; both places say who stopped it', async () => {
    const { issue, run, thread } = await labelledIssue('Bump the dependencies');
    emulator.engine.drive(run.run_id, 'INPROGRESS');
    await until(() => updatesOf(thread).some((call) => /in progress/i.test(text(call))), 'the INPROGRESS edit');

    const stop = appMention({ channel: CHANNEL, thread_ts: thread, user: SLACK_IDS.user, text: `<@${SLACK_IDS.botUser}> stop` });
    expect(await slackEvent(stop)).toBe(200);
    await until(() => emulator.engine.get(run.run_id)?.state === 'CANCELLED', 'the run cancelled');
    const said = await until(() => threadPosts(thread).find((call) => /Cancelled by/.test(text(call))), 'CANCELLED in the Slack thread');
    expect(text(said)).toContain(`<@${SLACK_IDS.user}>`);
    const comment = await until(() => bodies(issue.identifier).find((body) => /Cancelled by/i.test(body)), 'CANCELLED on the issue');
    expect(comment).toContain(`Slack user ${SLACK_IDS.user}`);
    await quiet(service);
    expect(bodies(issue.identifier).filter((body) => /Cancelled by/i.test(body))).toHaveLength(1);
    expect(threadPosts(thread).filter((call) => /Cancelled by/.test(text(call)))).toHaveLength(1);
  });

  it('the Cancel button on the thread’s status message stops the run; the issue says who', async () => {
    const { issue, run, thread } = await labelledIssue('Tidy the README');
    emulator.engine.drive(run.run_id, 'INPROGRESS');
    const edit = await until(() => updatesOf(thread).find((call) => /in progress/i.test(text(call))), 'the INPROGRESS edit');
    // The value Slack sends back is the one the button carries.
    const blocks = edit.args['blocks'] as Array<{ type: string; elements?: Array<{ action_id?: string; value?: string }> }>;
    const value = blocks.flatMap((block) => block.elements ?? []).find((element) => element.action_id === 'cancel_run')?.value;
    expect(value).toBe(`slack:${CHANNEL}:${thread}`);
    const click = blockActionsCancel({ user: SLACK_IDS.otherUser, channel: CHANNEL, message_ts: nextTs(), thread_ts: thread, value });
    expect((await bridge.interact(click)).status).toBe(200);
    await until(() => emulator.engine.get(run.run_id)?.state === 'CANCELLED', 'the run cancelled');
    const comment = await until(() => bodies(issue.identifier).find((body) => /Cancelled by/i.test(body)), 'CANCELLED on the issue');
    expect(comment).toContain(`Slack user ${SLACK_IDS.otherUser}`);
    await until(
      () => threadPosts(thread).some((call) => text(call).includes(`<@${SLACK_IDS.otherUser}>`) && /Cancelled by/.test(text(call))),
      'CANCELLED in the thread',
    );
  });

  it('the Answer button on the Slack thread’s BLOCKED message sends one follow-up; ✉️ on that message, and the issue hears one came, not what', async () => {
    const { issue, run, thread } = await labelledIssue('Pick the browsers to test');
    emulator.engine.drive(run.run_id, 'BLOCKED', { status_message: 'Which browsers?' });
    const blocked = await until(() => threadPosts(thread).find((call) => text(call).includes('answer_run')), 'BLOCKED with its Answer button');
    const click = answerClick({ channel: CHANNEL, message_ts: tsOf(blocked), thread_ts: thread, value: run.run_id });
    expect((await bridge.interact(click)).status).toBe(200);
    const modal = await until(() => slack.callsTo('views.open').find((call) => JSON.stringify(call.args['view']).includes(run.run_id)), 'the Answer modal');
    const metadata = (modal.args['view'] as { private_metadata: string }).private_metadata;
    expect((await bridge.interact(answerSubmission({ text: 'Chrome and Safari', privateMetadata: metadata }))).status).toBe(200);

    await until(() => emulator.engine.followups(run.run_id).some((f) => f.message === 'Chrome and Safari'), 'the follow-up');
    await until(
      () => slack.callsTo('reactions.add').some((call) => call.args['timestamp'] === tsOf(blocked) && call.args['name'] === 'incoming_envelope'),
      'the ✉️ on the BLOCKED message',
    );
    const heard = await until(() => bodies(issue.identifier).find((body) => body.includes('follow-up from Slack')), 'the note on the issue');
    expect(heard).toContain(`Slack user ${SLACK_IDS.user}`);
    expect(heard).not.toContain('Safari');
    await quiet(service);
    expect(emulator.engine.followups(run.run_id)).toHaveLength(1);
    // The thread, where it was given, is not told of its own answer.
    expect(threadPosts(thread).filter((call) => text(call).includes('follow-up from'))).toEqual([]);
  });
});
