import { beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { RunningService } from '../../src/main.js';
import type { FakeLinearApi } from '../fakes/linear-api.js';
import type { FakeSlackApi } from '../fakes/slack-api.js';
import { LINEAR_IDS, type LinearEnvelopeFixture } from '../fixtures/linear/index.js';
import { appMention, threadReply } from '../fixtures/slack/events.js';
import { SLACK_IDS } from '../fixtures/slack/ids.js';
import { commentOn, labelAdded, newIssue, quiet } from '../linear/linear-harness.js';
import { callText, type SlackBridge, tsOf } from '../helpers/slack-bridge.js';
import { useSlackLinearWorld } from '../helpers/tracker-world.js';

/*
 * One run, two places (Slack → Linear): with `slack.link_linear_issues: true`, a mention
 * naming a Linear issue binds its run to that issue. The real service, real Bolt and Linear SDK, the
 * fake Slack Web API and fake Linear GraphQL, the emulator as the run API.
 */

const CHANNEL = SLACK_IDS.channel;
const { agent, bug } = LINEAR_IDS.labels;

const world = useSlackLinearWorld({
  yaml: `tracker:\n  interval: 1s\nslack:\n  link_linear_issues: true\nlinear:\n  labels:\n    agent: {}\n  teams: [ENG]\n  context: { messages: 2 }\n`,
});
let bridge: SlackBridge;
let slack: FakeSlackApi, fake: FakeLinearApi, emulator: RunningEmulator, service: RunningService;
beforeAll(() => {
  ({ fake, bridge } = world);
  ({ slack, emulator, service } = bridge);
});

const until: SlackBridge['until'] = (find, what) => bridge.until(find, what);
const deliver = (payload: LinearEnvelopeFixture) => bridge.deliverLinear(payload);
const mention = (text: string, fields: Record<string, unknown> = {}) => bridge.mention(text, { user: SLACK_IDS.user, ...fields });
const text = callText;
const threadPosts = (ts: string) => bridge.threadPosts(ts);

const bodies = (identifier: string) => fake.comments(identifier).map((comment) => comment.body);
const runFor = (ts: string) => bridge.runFor(CHANNEL, ts);

describe('a Slack mention naming a Linear issue binds the run to it', () => {
  it('the issue shows the run (start comment, each announced state once); an @agent comment on it reaches the same run', async () => {
    const { issue } = newIssue(fake, 'Checkout button does nothing');
    fake.addComment(issue.identifier, 'Only on Safari, it seems.', { id: 'human-ctx', name: 'Grace Hopper' });
    const ts = await mention(`please look at ${issue.identifier} today`);
    const run = await until(() => runFor(ts), 'the run');
    // The issue's context, quoted and marked as Linear content.
    expect(run.prompt).toContain(`> ${issue.identifier}: Checkout button does nothing`);
    expect(run.prompt).toContain('> Only on Safari, it seems.');
    // The issue's title, never the request's words: they may have been said in a private channel.
    expect(run.title).toBe(`${issue.identifier}: Checkout button does nothing`);
    const status = tsOf(await until(() => threadPosts(ts)[0], 'the status message'));
    await until(
      () => slack.callsTo('chat.update').some((call) => call.args['ts'] === status && text(call).includes(`${issue.identifier}: Checkout button does nothing`)),
      'the status message showing the run under the issue title',
    );
    expect(JSON.stringify(fake.callsTo('createComment'))).not.toContain('please look at');

    const start = await until(
      () => fake.comments(issue.identifier).find((c) => c.body.includes('Received') || c.body.includes(run.run_id)),
      'the start comment',
    );
    const created = fake.callsTo('createComment').find((call) => (call.variables['input'] as { id: string }).id === start.id);
    expect((created?.variables['input'] as { body: string }).body).toContain(`Received from Slack user ${SLACK_IDS.user}`);
    emulator.engine.drive(run.run_id, 'INPROGRESS');
    await until(
      () =>
        fake
          .comments(issue.identifier)
          .find((c) => c.id === start.id)
          ?.body.includes('INPROGRESS'),
      'the INPROGRESS edit on the issue',
    );

    expect(await deliver(commentOn(issue, '@agent the fix must keep Apple Pay working'))).toBe(200);
    await until(() => emulator.engine.followups(run.run_id).some((f) => f.message.includes('Apple Pay')), 'the follow-up from Linear');
    await until(() => threadPosts(ts).some((call) => text(call).includes('follow-up from Linear')), 'the Slack thread hears of it');

    emulator.engine.drive(run.run_id, 'SUCCEEDED');
    await until(() => bodies(issue.identifier).some((body) => body.startsWith('✅')), 'the end on the issue');
    await until(() => threadPosts(ts).some((call) => /Done/.test(text(call))), 'the end in the thread');
    await quiet(service);
    expect(emulator.engine.list({}).runs.filter((r) => r.prompt?.includes(issue.identifier))).toHaveLength(1);
    // human comment, start comment, the @agent comment, the end: nothing doubled
    expect(bodies(issue.identifier).filter((body) => body.startsWith('✅'))).toHaveLength(1);
    expect(threadPosts(ts).filter((call) => /Done/.test(text(call)))).toHaveLength(1);
  });

  it('the prompt quotes the issue as a run started from the issue does: its description and the latest comments within linear.context', async () => {
    const description = 'Steps: open the cart on Safari 17 and press Pay.\n\nExpected: the payment sheet opens.';
    const comments = ['First seen on Monday.', 'Only with Apple Pay on.', 'Chrome is fine.'];
    const seeded = (title: string) => {
      const { issue, data } = newIssue(fake, title);
      fake.addIssue({ ...issue, description });
      for (const body of comments) fake.addComment(issue.identifier, body, { id: 'human-ctx', name: 'Grace Hopper' });
      return { issue, data: { ...data, description } };
    };
    const named = seeded('Pay does nothing on Safari');
    const labelled = seeded('Pay does nothing on Safari either');

    const ts = await mention(`please look at ${named.issue.identifier}`);
    const fromSlack = (await until(() => runFor(ts), 'the run from Slack')).prompt ?? '';
    expect(await deliver(labelAdded(agent, [bug], labelled.data))).toBe(200);
    const fromIssue = await until(
      () => emulator.engine.list({}).runs.find((run) => run.title?.startsWith(`${labelled.issue.identifier}:`))?.prompt,
      'the run from the label',
    );

    const between = (prompt: string, start: string, end: string) => {
      const from = prompt.indexOf(start);
      return from === -1 ? '' : prompt.slice(from, prompt.indexOf(end, from) + end.length);
    };
    const descriptionOf = (prompt: string) => between(prompt, '--- Linear issue description', '--- end of Linear issue description ---');
    expect(descriptionOf(fromSlack)).toContain('> Steps: open the cart on Safari 17 and press Pay.\n> \n> Expected: the payment sheet opens.');
    expect(descriptionOf(fromSlack)).toBe(descriptionOf(fromIssue));
    // linear.context keeps the latest 2 human comments, quoted, in both.
    for (const prompt of [fromSlack, fromIssue]) {
      const block = between(prompt, '--- Recent Linear comments', '--- end of Linear comments ---');
      expect(block).toContain('> Only with Apple Pay on.');
      expect(block).toContain('> Chrome is fine.');
      expect(block).not.toContain('First seen on Monday.');
      expect(block).toContain('(1 earlier comments left out)');
    }
    await quiet(service);
  });

  it('a second mention naming the issue while its run is active joins that run, and the thread is told which', async () => {
    const { issue } = newIssue(fake, 'Slow search');
    const first = await mention(`${issue.identifier} make search faster`);
    const run = await until(() => runFor(first), 'the first run');
    await until(() => fake.comments(issue.identifier).length > 0, 'the start comment');
    const second = await mention(`have a look at https://linear.app/acme/issue/${issue.identifier}/slow-search too`);
    const told = await until(() => threadPosts(second).find((call) => text(call).includes(run.run_id)), 'the thread told which run');
    expect(text(told)).toContain('already has an active run');
    await until(() => emulator.engine.followups(run.run_id).some((f) => f.message.includes('have a look at')), 'the request as a follow-up');
    await quiet(service);
    expect(runFor(second)).toBeUndefined();

    // Replies in the joining thread steer the same run.
    const reply = threadReply({ channel: CHANNEL, thread_ts: second, user: SLACK_IDS.user, text: 'and cache the results' });
    expect((await bridge.post(reply)).status).toBe(200);
    await until(() => emulator.engine.followups(run.run_id).some((f) => f.message.includes('cache the results')), 'the reply as a follow-up');

    // The joining thread is one of the run's places now: its end is announced there once, as in the first thread.
    expect((await service.store.trackedRuns.get(run.run_id))?.destinations).toContain(`slack:${CHANNEL}:${second}`);
    await quiet(service);
    emulator.engine.drive(run.run_id, 'SUCCEEDED');
    await until(() => threadPosts(second).some((call) => /Done/.test(text(call))), 'the end in the joining thread');
    await until(() => threadPosts(first).some((call) => /Done/.test(text(call))), 'the end in the first thread');
    await until(() => bodies(issue.identifier).some((body) => body.startsWith('✅')), 'the end on the issue');
    await quiet(service);
    for (const thread of [first, second]) expect(threadPosts(thread).filter((call) => /Done/.test(text(call)))).toHaveLength(1);
    expect(bodies(issue.identifier).filter((body) => body.startsWith('✅'))).toHaveLength(1);
  });

  it.each([
    ['an unknown issue', 'ENG-99999', /could not find the Linear issue ENG-99999/],
    ['an issue of a team we do not serve', 'OPS-1', /does not serve/],
  ])('%s: the thread says so and the run starts unbound', async (_name, identifier, said) => {
    if (identifier === 'OPS-1')
      fake.addIssue({
        id: crypto.randomUUID(),
        identifier,
        title: 'Other team',
        url: `https://linear.app/acme/issue/${identifier}`,
        team: { id: 'team-ops', key: 'OPS' },
      });
    const ts = await mention(`fix ${identifier} please`);
    const run = await until(() => runFor(ts), 'the run');
    await until(() => threadPosts(ts).some((call) => said.test(text(call))), 'the notice');
    await quiet(service);
    const stored = await service.store.trackedRuns.get(run.run_id);
    expect(stored?.destinations).toContain(`slack:${CHANNEL}:${ts}`);
    expect(stored?.destinations.filter((destination) => destination.startsWith('linear:'))).toEqual([]);
    expect(fake.comments(identifier)).toHaveLength(0);
  });

  it('a mention in a DM bound to an issue: the issue sees the issue’s title, never the words said in private', async () => {
    const { issue } = newIssue(fake, 'Rotate the keys');
    const dm = SLACK_IDS.dm;
    slack.setChannel(dm, { name: 'dm', is_im: true });
    const event = appMention({ channel: dm, channel_type: 'im', user: SLACK_IDS.user, text: `${issue.identifier} the secret is hunter2` });
    expect((await bridge.post({ ...event, type: 'message' })).status).toBe(200);
    const run = await until(() => emulator.engine.list({}).runs.find((r) => r.prompt?.includes('hunter2')), 'the run');
    // Stored as tracked before it changes, so the tracker sees the change (not a stale-run sweep later).
    await quiet(service);
    emulator.engine.drive(run.run_id, 'SUCCEEDED');
    await until(() => bodies(issue.identifier).some((body) => body.startsWith('✅')), 'the end on the issue');
    await quiet(service);
    expect(bodies(issue.identifier).join('\n')).not.toContain('hunter2');
    expect(bodies(issue.identifier).join('\n')).toContain('Rotate the keys');
  });
});
