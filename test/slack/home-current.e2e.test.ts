import { beforeAll, describe, expect, it } from 'vitest';
import { referenceLine } from '../../src/core/ports/triggers.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { RunningService } from '../../src/main.js';
import { homeDestination } from '../../src/slack/home-view.js';
import { messageKey } from '../../src/slack/normalise.js';
import type { FakeSlackApi, SlackCall } from '../fakes/slack-api.js';
import { postSlackEvent } from '../fakes/slack-signing.js';
import { appMention, eventCallback } from '../fixtures/slack/events.js';
import { SLACK_IDS, nextTs } from '../fixtures/slack/ids.js';
import { quiet } from '../linear/linear-harness.js';
import { SLACK_SECRET, type SlackBridge, useSlackBridge } from '../helpers/slack-bridge.js';

/*
 * The Home tab stays current for runs asked for before it was first opened, end to
 * end: the real Bolt on the running service receives correctly signed requests, the fake Slack Web API
 * records every views.publish, the emulator plays the run API. Each test has a person of its own who
 * has never opened the tab before it.
 */

const CHANNEL = SLACK_IDS.channel;
let bridge: SlackBridge;
let slack: FakeSlackApi, emulator: RunningEmulator, service: RunningService, events: string;

const world = useSlackBridge({ channels: { [CHANNEL]: 'dev' }, yaml: `tracker:\n  interval: 1s\n`, resetEach: true });
beforeAll(() => {
  bridge = world.bridge;
  ({ slack, emulator, service, events } = bridge);
});

const until: SlackBridge['until'] = (find, what) => bridge.until(find, what);
const homeOpened = (user: string) => eventCallback({ type: 'app_home_opened', user, channel: SLACK_IDS.dm, tab: 'home', event_ts: nextTs() });
const publishesFor = (user: string) => slack.callsTo('views.publish').filter((call) => call.args['user_id'] === user);
/** The Home tab's line for one run in a published view (its section's block id names the run). */
const runLineOf = (call: SlackCall, runId: string) =>
  (call.args['view'] as { blocks: Array<{ block_id?: string; text?: { text: string } }> }).blocks.find((block) => block.block_id === `run_${runId}`)?.text
    ?.text;
const homeRows = (user: string, state?: 'pending') => service.store.outbox.list({ destination: homeDestination(user), ...(state && { state }) });

/** A run `user` asks for by a mention, stored and quiet (its status message posted) before it returns. */
async function askedBy(user: string, text: string) {
  const mention = appMention({ channel: CHANNEL, user, text: `<@${SLACK_IDS.botUser}> ${text}` });
  expect((await bridge.post(mention)).status).toBe(200);
  const key = referenceLine(messageKey(CHANNEL, mention['ts'] as string));
  const run = await until(() => emulator.engine.list({}).runs.find((candidate) => candidate.prompt?.includes(key)), 'the run');
  await until(async () => (await service.store.trackedRuns.get(run.run_id)) !== undefined, 'the run stored');
  await quiet(service);
  return run;
}

/** Opens the person's Home tab and waits for the publish it owes. */
async function openHome(user: string): Promise<SlackCall> {
  expect((await postSlackEvent(events, SLACK_SECRET, homeOpened(user))).status).toBe(200);
  return slack.waitForCall('views.publish', (call) => call.args['user_id'] === user);
}

/** Waits until every row owed to the person's Home tab is delivered, then counts its publishes. */
async function settledPublishes(user: string): Promise<number> {
  await until(async () => (await homeRows(user)).every((row) => row.state === 'sent'), 'the Home rows delivered');
  return publishesFor(user).length;
}

describe('the Home tab of someone who asked for runs before first opening it', () => {
  it('is republished at each later state change of such a run', async () => {
    const user = 'U0HOMELATE1';
    const run = await askedBy(user, 'Tidy the changelog');
    expect(publishesFor(user)).toEqual([]);

    const opened = await openHome(user);
    expect(runLineOf(opened, run.run_id)).toContain('Queued');
    const before = await settledPublishes(user);

    emulator.engine.drive(run.run_id, 'INPROGRESS');
    const lines = () => publishesFor(user).flatMap((call) => runLineOf(call, run.run_id) ?? []);
    await until(() => lines().some((line) => line.includes('In progress')), 'the Home tab republished with INPROGRESS');
    emulator.engine.drive(run.run_id, 'SUCCEEDED');
    await until(() => lines().some((line) => line.includes('Succeeded')), 'the Home tab republished with SUCCEEDED');
    // One publish per change, none for the announcement of the end.
    expect((await settledPublishes(user)) - before).toBe(2);
    // The tab also tells the person what their runs used: the run's usage as the tracker recorded it.
    const usage = (publishesFor(user).at(-1)?.args['view'] as { blocks: Array<{ block_id?: string; elements?: Array<{ text: string }> }> }).blocks.find(
      (block) => block.block_id === 'home_usage',
    );
    expect(usage?.elements?.[0]?.text).toBe('*Your usage, last 30 days:* 1 run, 0.024 credits (inference 0.02, compute 0.004).');
  });

  it('a burst of changes of such runs costs one publish', async () => {
    const user = 'U0HOMELATE2';
    const first = await askedBy(user, 'Bump the linter');
    const second = await askedBy(user, 'Bump the formatter');

    // The opening's publish is held until both changes are owed behind it.
    let release = () => {};
    slack.failNext('views.publish', { until: new Promise<void>((resolve) => (release = resolve)) });
    await openHome(user);
    emulator.engine.drive(first.run_id, 'INPROGRESS');
    emulator.engine.drive(second.run_id, 'INPROGRESS');
    await until(async () => (await homeRows(user, 'pending')).filter((row) => row.kind === 'status').length === 2, 'both changes owed to the Home tab');
    release();

    expect(await settledPublishes(user)).toBe(2);
    const last = publishesFor(user).at(-1) as SlackCall;
    expect(runLineOf(last, first.run_id)).toContain('In progress');
    expect(runLineOf(last, second.run_id)).toContain('In progress');
  });
});
