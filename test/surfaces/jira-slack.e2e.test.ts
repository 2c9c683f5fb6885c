import { beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { RunningService } from '../../src/main.js';
import type { FakeJiraApi } from '../fakes/jira-api.js';
import type { FakeSlackApi } from '../fakes/slack-api.js';
import { commentCreated, jiraDelivery, labelsChanged, type Json } from '../fixtures/jira/webhooks.js';
import { SLACK_IDS } from '../fixtures/slack/ids.js';
import { callText, type SlackBridge, tsOf } from '../helpers/slack-bridge.js';
import { useSlackTrackerWorld } from '../helpers/tracker-world.js';
import { JIRA_EMAIL, JIRA_SECRET, JIRA_TOKEN, describeIssue, newIssue, quiet, startFakeJiraApi } from '../jira/jira-harness.js';

/*
 * One run, every place told once, as Linear: a Jira label whose route names
 * `slack_channel` starts one run that the issue and a new Slack thread both carry; with
 * `slack.link_jira_issues`, a Slack mention naming `ENG-7` binds its run to the issue. The real
 * service and Bolt, the fake Slack Web API and fake Jira REST v3, the emulator as the run API.
 */

const CHANNEL = SLACK_IDS.channel;
const world = useSlackTrackerWorld(
  () => startFakeJiraApi({ email: JIRA_EMAIL, apiToken: JIRA_TOKEN }),
  (fake) => ({
    channels: { [CHANNEL]: 'dev' },
    env: { JIRA_BASE_URL: fake.url, JIRA_EMAIL, JIRA_API_TOKEN: JIRA_TOKEN, JIRA_WEBHOOK_SECRET: JIRA_SECRET },
    describe: () => `jira calls: ${fake.calls.length}`,
    yaml: `tracker:\n  interval: 1s\nslack:\n  link_jira_issues: true\njira:\n  labels:\n    agent: { slack_channel: ${CHANNEL} }\n  projects: [ENG]\n`,
  }),
);
let bridge: SlackBridge;
let slack: FakeSlackApi, jira: FakeJiraApi, emulator: RunningEmulator, service: RunningService;
beforeAll(() => {
  ({ fake: jira, bridge } = world);
  ({ slack, emulator, service } = bridge);
});

const until: SlackBridge['until'] = (find, what) => bridge.until(find, what);
const deliver = async (payload: Json) => {
  const { body, headers } = jiraDelivery(JIRA_SECRET, payload);
  return (await fetch(`${service.url}/jira/webhook`, { method: 'POST', headers, body })).status;
};
const text = callText;
const topLevelPosts = () => slack.callsTo('chat.postMessage').filter((call) => call.args['channel'] === CHANNEL && call.args['thread_ts'] === undefined);
const ours = (key: string) => jira.comments(key).filter((comment) => comment.author.accountId === jira.myself.accountId);
const texts = (key: string) => ours(key).map((comment) => jira.text(comment.body));

describe('a Jira label with slack_channel: one run, carried by the issue and a Slack thread', () => {
  it('one top-level message naming the issue; BLOCKED and the end once per place; a Slack reply steers the run', async () => {
    const before = topLevelPosts().length;
    const issue = { ...newIssue(jira, 'Fix the flaky login test'), labels: ['agent'] };
    expect(await deliver(labelsChanged(issue, []))).toBe(200);
    const run = await until(() => emulator.engine.list({}).runs.find((r) => r.title?.startsWith(`${issue.key}:`)), 'the run');
    const top = await until(() => topLevelPosts()[before], 'the top-level Slack message');
    expect(text(top)).toContain(`${issue.key}: Fix the flaky login test`);
    expect(text(top)).toContain(`${jira.url}/browse/${issue.key}`);
    const thread = tsOf(top);

    emulator.engine.drive(run.run_id, 'BLOCKED', { status_message: 'Which browser?' });
    await until(() => bridge.threadPosts(thread).some((call) => text(call).includes('Which browser?')), 'BLOCKED in the Slack thread');
    await until(
      () => texts(issue.key).some((words) => words.includes('Which browser?') && words.includes('Answer with a comment starting with @agent')),
      'BLOCKED on the issue',
    );
    expect(
      (await bridge.post({ type: 'message', channel: CHANNEL, user: SLACK_IDS.user, text: 'Safari', ts: `${Date.now() / 1000}`, thread_ts: thread })).status,
    ).toBe(200);
    await until(() => emulator.engine.followups(run.run_id).some((followup) => followup.message.includes('Safari')), 'the follow-up from Slack');

    emulator.engine.drive(run.run_id, 'SUCCEEDED');
    await until(() => texts(issue.key).some((words) => words.startsWith('✅')), 'the end on the issue');
    await until(() => bridge.threadPosts(thread).some((call) => /Done/.test(text(call))), 'the end in the thread');
    await quiet(service);
    expect(emulator.engine.list({}).runs.filter((r) => r.title?.startsWith(`${issue.key}:`))).toHaveLength(1);
    expect(texts(issue.key).filter((words) => words.startsWith('✅'))).toHaveLength(1);
    expect(texts(issue.key).filter((words) => words.includes('Which browser?') && words.startsWith('⏸'))).toHaveLength(1);
    expect(bridge.threadPosts(thread).filter((call) => /Done/.test(text(call)))).toHaveLength(1);
  });
});

describe('a Slack mention naming a Jira issue binds the run to it (slack.link_jira_issues)', () => {
  it('the issue shows the run once per state, quoting it in the prompt; an @agent comment on the issue reaches the same run', async () => {
    const issue = newIssue(jira, 'Checkout button does nothing');
    describeIssue(jira, issue.key, 'Only on Safari, it seems.');
    jira.addComment(issue.key, 'Seen since Monday.');
    const ts = await bridge.mention(`please look at ${issue.key} today`);
    const run = await until(() => bridge.runFor(CHANNEL, ts), 'the run');
    expect(run.prompt).toContain(`> ${issue.key}: Checkout button does nothing`);
    expect(run.prompt).toContain('> Only on Safari, it seems.');
    expect(run.prompt).toContain('> Seen since Monday.');
    expect(run.title).toBe(`${issue.key}: Checkout button does nothing`);
    // The start comment as posted (it is edited to show the run soon after).
    const posted = await until(() => jira.callsTo('POST', `/rest/api/3/issue/${issue.key}/comment`)[0], 'the start comment on the issue');
    expect(jira.text((posted.body as { body: Parameters<typeof jira.text>[0] }).body)).toContain(`Received from Slack user ${SLACK_IDS.user}`);
    // The request's words stay in Slack: they may have been said in a private channel.
    expect(JSON.stringify(jira.callsTo('POST', '/rest/api/3/issue/*/comment').map((call) => call.body))).not.toContain('please look at');

    expect(await deliver(commentCreated(issue, '@agent keep Apple Pay working'))).toBe(200);
    await until(() => emulator.engine.followups(run.run_id).some((followup) => followup.message.includes('Apple Pay')), 'the follow-up from Jira');
    emulator.engine.drive(run.run_id, 'SUCCEEDED');
    await until(() => texts(issue.key).some((words) => words.startsWith('✅')), 'the end on the issue');
    await until(() => bridge.threadPosts(ts).some((call) => /Done/.test(text(call))), 'the end in the thread');
    await quiet(service);
    expect(emulator.engine.list({}).runs.filter((r) => r.prompt?.includes(issue.key))).toHaveLength(1);
    expect(texts(issue.key).filter((words) => words.startsWith('✅'))).toHaveLength(1);
  });

  it('a key of a project not served is not looked up: the run starts unbound', async () => {
    const before = jira.calls.length;
    const ts = await bridge.mention('is OPS-12 related? also UTF-8 please');
    const run = await until(() => bridge.runFor(CHANNEL, ts), 'the run');
    expect(run.title).not.toMatch(/^OPS-12/);
    await quiet(service);
    expect(jira.calls.slice(before).filter((call) => call.path.includes('OPS-12'))).toHaveLength(0);
  });
});
