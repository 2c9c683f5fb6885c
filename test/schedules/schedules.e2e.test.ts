import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunItem } from '../../src/core/ports/agent-runs.js';
import { readPause } from '../../src/core/schedules/schedule-pause.js';
import type { ScheduleFire } from '../../src/core/ports/store.js';
import { referenceLine } from '../../src/core/ports/triggers.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { RunningService } from '../../src/main.js';
import type { FakeSlackApi, SlackCall } from '../fakes/slack-api.js';
import { threadReply } from '../fixtures/slack/events.js';
import { SLACK_IDS } from '../fixtures/slack/ids.js';
import { startSlackBridge, startSlackFakes, type SlackBridge, type SlackFakes } from '../helpers/slack-bridge.js';

/*
 * Schedules end to end: the real service (startBridge) on a SQLite file, with a schedule that fires
 * every 2 seconds, the fake Slack Web API and the emulator in manual mode (runs move only when the
 * test drives them). Each test starts its own service (own database) and stops it at the end: its
 * schedule would keep firing otherwise. Nothing here asserts on wall-clock durations; every wait is
 * a poll with a deadline.
 */

const EVERY_2S = '*/2 * * * * *';

let fakes: SlackFakes;
let slack: FakeSlackApi, emulator: RunningEmulator;
let bridge: SlackBridge | undefined;
let service: RunningService | undefined;

beforeAll(async () => {
  fakes = await startSlackFakes({ users: { [SLACK_IDS.user]: { display_name: 'ada' } } });
  ({ slack, emulator } = fakes);
});
afterEach(async () => {
  // Promptly: the schedule fires every 2 s for as long as the service runs.
  await bridge?.stop();
  bridge = service = undefined;
});
afterAll(async () => {
  await emulator.close();
  await slack.close();
});

/** The real service with Slack over HTTP, the tracker (and schedule upkeep) every second, and `schedule`. */
async function startWith(schedule: string): Promise<RunningService> {
  bridge = await startSlackBridge({ fakes, yaml: `tracker:\n  interval: 1s\nschedules:\n${schedule}` });
  return (service = bridge.service);
}

const until: SlackBridge['until'] = (find, what, timeoutMs = 8_000) => bridge!.until(find, what, timeoutMs);

/** Runs created for the schedule (its config `name`), oldest first. */
const runsOf = (name: string): RunItem[] =>
  emulator.engine
    .list({})
    .runs.filter((run) => (run.agent_config as { name?: string } | undefined)?.name === name)
    .reverse();
/** The schedule's fires, oldest first. */
const firesOf = async (name: string): Promise<ScheduleFire[]> => (await service!.store.scheduleFires.list(name, 500)).reverse();
const topLevelPosts = (channel: string) =>
  slack.callsTo('chat.postMessage').filter((call) => call.args['channel'] === channel && call.args['thread_ts'] === undefined);
const threadPosts = (channel: string, threadTs: string) =>
  slack.callsTo('chat.postMessage').filter((call) => call.args['channel'] === channel && call.args['thread_ts'] === threadTs);
const updatesOf = (ts: string) => slack.callsTo('chat.update').filter((call) => call.args['ts'] === ts);
const text = (call: SlackCall) => JSON.stringify([call.args['text'], call.args['blocks']]);
const tsOf = (call: SlackCall) => (call.response as unknown as { ts: string }).ts;

describe('a schedule that reports to a Slack channel', () => {
  it('posts a top-level status message, creates the run with the schedule’s route, tells the story in that thread, and takes replies as follow-ups', async () => {
    const channel = 'C0SCHED0001';
    slack.setChannel(channel, { name: 'reports' });
    await startWith(
      [
        '  - name: pr-summary',
        `    cron: "${EVERY_2S}"`,
        '    timezone: UTC',
        '    prompt: "Summarise the open pull requests.\\nList the stale ones first."',
        '    title: Pull request summary',
        '    config: { environment_id: env_reports }',
        '    overlap: skip',
        `    notify: { slack_channel: ${channel} }`,
        '',
      ].join('\n'),
    );

    const status = await until(() => topLevelPosts(channel)[0], 'the top-level status message');
    expect(status.args['thread_ts']).toBeUndefined();
    expect(text(status)).toContain('Pull request summary');
    expect(text(status)).toContain('cancel_run');
    const statusTs = tsOf(status);

    const run = await until(() => runsOf('pr-summary')[0], 'the scheduled run');
    expect(run.title).toBe('Pull request summary');
    expect(run.prompt).toContain('Summarise the open pull requests.\nList the stale ones first.');
    expect(run.agent_config).toMatchObject({ environment_id: 'env_reports', name: 'pr-summary' });
    // The run is the one of the first calendar fire (its reference line names that fire's trigger).
    const fire = await until(async () => (await firesOf('pr-summary')).find((candidate) => candidate.triggerKey !== null), 'the fire');
    expect(fire.slot).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d[02468]$/);
    expect(run.prompt).toContain(referenceLine(fire.triggerKey!));

    emulator.engine.drive(run.run_id, 'INPROGRESS');
    await until(() => updatesOf(statusTs).some((call) => text(call).includes(run.run_id) && /in progress/i.test(text(call))), 'the INPROGRESS edit');
    const pr = 'https://github.com/acme/reports/pull/11';
    emulator.engine.drive(run.run_id, 'SUCCEEDED', { artifacts: [{ artifact_type: 'PULL_REQUEST', data: { url: pr, branch: 'summary' } }] });
    const done = await until(() => threadPosts(channel, statusTs).find((call) => text(call).includes(pr)), 'the end message in the thread');
    expect(text(done)).toContain('/sessions/');
    await until(() => updatesOf(statusTs).some((call) => /succeeded/i.test(text(call))), 'the SUCCEEDED edit');
    // One end message, and every other state was an edit of the status message, not a new post.
    expect(threadPosts(channel, statusTs)).toHaveLength(1);

    const reply = threadReply({ channel, thread_ts: statusTs, text: 'also list the draft ones' });
    expect((await bridge!.post(reply)).status).toBe(200);
    await until(() => emulator.engine.followups(run.run_id).length === 1, 'the follow-up');
    expect(emulator.engine.followups(run.run_id)[0]?.message).toBe('also list the draft ones');
    await until(() => slack.reactions(channel, reply['ts'] as string).includes('incoming_envelope'), 'the envelope reaction');
  });
});

describe('overlap: skip', () => {
  it('skips the slots while the run is active, creates no second run, and fires again once it ended', async () => {
    await startWith(['  - name: overlapping', `    cron: "${EVERY_2S}"`, '    prompt: Tidy the issue tracker.', '    overlap: skip', ''].join('\n'));
    const first = await until(() => runsOf('overlapping')[0], 'the first run');
    emulator.engine.drive(first.run_id, 'INPROGRESS');

    const busy = `overlap: skip — the previous run ${first.run_id} is still INPROGRESS`;
    const skipped = await until(async () => {
      const found = (await firesOf('overlapping')).filter((fire) => fire.status === 'skipped' && fire.reason === busy);
      return found.length >= 2 && found;
    }, 'two slots skipped for the active run');
    expect(skipped.every((fire) => fire.triggerKey !== null)).toBe(true);
    expect(runsOf('overlapping')).toHaveLength(1);
    // Every fire so far: the first one (its run), then only skips.
    const decided = await until(async () => {
      const found = await firesOf('overlapping');
      return found[0]?.status === 'created' && found;
    }, 'the first fire noted as created');
    // A new schedule has no past: nothing before the service started counts as missed.
    expect(decided.filter((fire) => fire.status === 'missed')).toEqual([]);
    expect(decided[0]).toMatchObject({ status: 'created', runId: first.run_id });
    expect(decided.slice(1).every((fire) => fire.status === 'skipped')).toBe(true);

    emulator.engine.drive(first.run_id, 'SUCCEEDED');
    const second = await until(() => runsOf('overlapping')[1], 'the run of the next slot');
    expect(second.run_id).not.toBe(first.run_id);
    const fires = await firesOf('overlapping');
    const secondFire = fires.find((fire) => fire.triggerKey !== null && second.prompt?.includes(referenceLine(fire.triggerKey)));
    expect(secondFire?.status).toMatch(/^(submitted|created)$/);
    expect(secondFire!.firedAt).toBeGreaterThan(skipped.at(-1)!.firedAt);
  });
});

describe('pause_after_failures: 1', () => {
  it('a failed run pauses the schedule: a notice in the channel says how to resume, and later slots are skipped as paused', async () => {
    const channel = 'C0SCHED0003';
    slack.setChannel(channel, { name: 'fragile' });
    await startWith(
      [
        '  - name: fragile',
        `    cron: "${EVERY_2S}"`,
        '    prompt: Run the flaky migration check.',
        '    overlap: skip',
        '    pause_after_failures: 1',
        `    notify: { slack_channel: ${channel} }`,
        '',
      ].join('\n'),
    );
    const run = await until(() => runsOf('fragile')[0], 'the run');
    emulator.engine.drive(run.run_id, 'FAILED', { status_message: 'migration check crashed' });

    const notice = await until(() => topLevelPosts(channel).find((call) => /paused/i.test(text(call))), 'the paused notice');
    expect(text(notice)).toContain('Schedule fragile paused after 1 failed run in a row');
    expect(text(notice)).toContain('agent-bridge schedules resume fragile');
    const pause = await readPause(service!.store.settings, 'fragile');
    expect(pause).toMatchObject({ paused: true, reason: expect.stringContaining(`run ${run.run_id} ended FAILED`) });

    const paused = await until(async () => {
      const found = (await firesOf('fragile')).filter((fire) => fire.status === 'skipped' && fire.reason?.startsWith('paused ('));
      return found.length >= 2 && found;
    }, 'two slots skipped as paused');
    expect(paused[0]!.reason).toBe(`paused (${pause!.reason})`);
    // No second run: a slot between the FAILED and the tracker noticing it learns the failure from the
    // run API during its overlap check, and pauses there.
    expect(runsOf('fragile')).toHaveLength(1);
    const after = (await firesOf('fragile')).filter((fire) => fire.firedAt >= pause!.at);
    expect(after.length).toBeGreaterThanOrEqual(2);
    expect(after.every((fire) => fire.status === 'skipped' && fire.reason?.startsWith('paused ('))).toBe(true);
    // The notice is said once.
    expect(topLevelPosts(channel).filter((call) => /paused/i.test(text(call)))).toHaveLength(1);
  });
});
