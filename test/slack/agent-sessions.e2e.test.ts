import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { referenceLine } from '../../src/core/ports/triggers.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { RequestLogEntry } from '../../src/emulator/index.js';
import type { RunningService } from '../../src/main.js';
import { messageKey } from '../../src/slack/normalise.js';
import type { FakeSlackApi } from '../fakes/slack-api.js';
import { postSlackEvent } from '../fakes/slack-signing.js';
import { agentSessionStopped, appContextChanged, appMention, channelEntity, directMessage, eventCallback, threadReply } from '../fixtures/slack/events.js';
import { SLACK_IDS, nextTs } from '../fixtures/slack/ids.js';
import { CapturingLogger } from '../core/capturing-logger.js';
import { SLACK_SECRET, type SlackBridge, useSlackBridge } from '../helpers/slack-bridge.js';

/*
 * Slack's agent experience end to end, on the running service — the real Bolt receives
 * correctly signed requests, the fake Slack Web API keeps each thread's agent session with every
 * status it was set to, the emulator (manual) plays the run API. `slack.allowed_users` lists
 * SLACK_IDS.user only: SLACK_IDS.otherUser may not stop runs.
 */

const CHANNEL = SLACK_IDS.channel;
const DM = SLACK_IDS.dm;
const ALLOWED = SLACK_IDS.user;
const REFUSED = SLACK_IDS.otherUser;
let bridge: SlackBridge;
let slack: FakeSlackApi, emulator: RunningEmulator, service: RunningService, events: string;
const logger = new CapturingLogger();

const world = useSlackBridge({
  channels: { [CHANNEL]: 'dev' },
  users: { [ALLOWED]: { display_name: 'ada' }, [REFUSED]: { display_name: 'grace' } },
  yaml: `tracker:\n  interval: 1s\nslack:\n  allowed_users: [${ALLOWED}]\n  channels:\n    ${CHANNEL}: { config: { environment_id: env_web, name: web } }\n`,
  logger,
});
beforeAll(() => {
  bridge = world.bridge;
  ({ slack, emulator, service, events } = bridge);
});
afterEach(() => {
  emulator.engine.reset();
  slack.setAgentSessionStopSubscribed(true);
});

const until: SlackBridge['until'] = (find, what, timeoutMs) => bridge.until(find, what, timeoutMs);
const runWith = (key: string) => emulator.engine.list({}).runs.find((run) => run.prompt?.includes(referenceLine(key)));
const statuses = (threadTs: string, channel: string = CHANNEL) => slack.agentSession(channel, threadTs)?.statuses ?? [];
const setStatusCalls = (threadTs: string) => slack.callsTo('agents.sessions.setStatus').filter((call) => call.args['thread_ts'] === threadTs);
const threadTexts = (threadTs: string) => slack.messages(CHANNEL, threadTs).map((message) => message.text);
const triggerCount = () => bridge.triggerCount();
const outboxCount = async () => Object.values(await service.store.outbox.counts()).reduce((sum, count) => sum + count, 0);
/** Every row owed so far delivered: nothing more can reach Slack until something new happens. */
const settled = () => until(async () => (await service.store.outbox.list()).every((row) => row.state === 'sent'), 'the outbox delivered');
async function cancels(runId: string): Promise<RequestLogEntry[]> {
  const log = (await (await fetch(`${emulator.url}/_emulator/requests`)).json()) as { requests: RequestLogEntry[] };
  return log.requests.filter((entry) => entry.method === 'POST' && entry.path === `/api/v1/agent/runs/${runId}/cancel`);
}

/** A mention in the channel by `user`; resolves with its thread and run once the run exists and its session is processing. */
async function startRun(text: string, user = ALLOWED): Promise<{ ts: string; runId: string }> {
  const ts = nextTs();
  expect((await bridge.post(appMention({ channel: CHANNEL, user, ts, text: `<@${SLACK_IDS.botUser}> ${text}` }))).status).toBe(200);
  const run = await until(() => runWith(messageKey(CHANNEL, ts)), 'the run');
  await until(() => statuses(ts).includes('processing'), 'the session processing');
  return { ts, runId: run.run_id };
}

describe('every run shown in a Slack thread is an agent session there', () => {
  it('processing while the agent works, suspended while it waits for a person, processing again once a reply revives it, active at the end — each once', async () => {
    const { ts, runId } = await startRun('fix the flaky login test');
    // Created with the run's title and who asked.
    expect(slack.agentSession(CHANNEL, ts)).toMatchObject({ status: 'processing', title: 'fix the flaky login test', initiator: ALLOWED });

    emulator.engine.drive(runId, 'INPROGRESS');
    await until(async () => (await service.store.trackedRuns.get(runId))?.state === 'INPROGRESS', 'the tracker seeing INPROGRESS');
    emulator.engine.drive(runId, 'BLOCKED', { status_message: 'Which database should I use?' });
    await until(() => statuses(ts).at(-1) === 'suspended', 'the session suspended');

    // A reply revives it (the emulator goes back to INPROGRESS): processing at once, and the tracker
    // seeing INPROGRESS sets nothing more.
    expect((await bridge.post(threadReply({ channel: CHANNEL, user: ALLOWED, thread_ts: ts, text: 'the staging one' }))).status).toBe(200);
    await until(() => statuses(ts).length === 3, 'the session processing again');
    await until(async () => (await service.store.trackedRuns.get(runId))?.state === 'INPROGRESS', 'the tracker seeing the revival');
    await settled();

    emulator.engine.drive(runId, 'SUCCEEDED');
    await until(async () => (await service.store.trackedRuns.get(runId))?.tracked === false, 'the end observed');
    await settled();
    expect(statuses(ts)).toEqual(['processing', 'suspended', 'processing', 'active']);
    expect(setStatusCalls(ts)).toHaveLength(4);
    expect(threadTexts(ts).some((text) => text.startsWith('✅ Done'))).toBe(true);
  });

  it('Slack’s warning that the app is not subscribed to agent_session_stopped is logged once at warn, naming what to fix', async () => {
    slack.setAgentSessionStopSubscribed(false);
    const first = await startRun('update the changelog');
    const second = await startRun('update the readme');
    await settled();
    expect(statuses(first.ts)).toEqual(['processing']);
    expect(statuses(second.ts)).toEqual(['processing']);
    const warnings = logger.at('warn').filter((line) => line.msg?.includes('agent_session_stopped'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.msg).toContain('Event Subscriptions');
    emulator.engine.cancel(first.runId);
    emulator.engine.cancel(second.runId);
  });
});

describe('Slack’s stop button (agent_session_stopped) is a stop like Cancel', () => {
  it('stops the run of an allowed person’s thread once however often the event comes; the session leaves processing and the thread says who stopped it', async () => {
    const { ts, runId } = await startRun('refactor the billing module');
    const stop = eventCallback(agentSessionStopped({ channel: CHANNEL, thread_ts: ts, user: ALLOWED }));
    expect((await postSlackEvent(events, SLACK_SECRET, stop)).status).toBe(200);
    await until(() => emulator.engine.get(runId)?.state === 'CANCELLED', 'the run cancelled');
    await until(() => statuses(ts).at(-1) === 'active', 'the session away from processing');
    await until(() => threadTexts(ts).includes(`Cancelled by <@${ALLOWED}>`), 'who stopped it');

    // Slack resends the event (the same event_id): nothing more.
    expect((await postSlackEvent(events, SLACK_SECRET, stop, { retryNum: 1, retryReason: 'http_timeout' })).status).toBe(200);
    await until(async () => (await service.store.trackedRuns.get(runId))?.tracked === false, 'the end observed');
    await settled();
    expect(await cancels(runId)).toHaveLength(1);
    expect(statuses(ts)).toEqual(['processing', 'active']);
    expect(threadTexts(ts).filter((text) => text.startsWith('Cancelled'))).toEqual([`Cancelled by <@${ALLOWED}>`]);
  });

  it('/agent <prompt> at a channel: the thread its status message starts is the session, and its stop button stops the run', async () => {
    const triggerId = `${Date.now()}.stop-from-command`;
    expect((await bridge.command({ user_id: ALLOWED, text: 'rotate the staging keys', trigger_id: triggerId })).status).toBe(200);
    const session = await until(
      () => slack.agentSessions().find((item) => item.title === 'rotate the staging keys' && item.status === 'processing'),
      'the session',
    );
    // The thread is the status message's own (posted at the bare channel).
    expect(slack.messages(CHANNEL).find((message) => message.ts === session.threadTs && message.thread_ts === undefined)?.user).toBe(SLACK_IDS.botUser);
    const run = await until(() => runWith(`slack:cmd:${triggerId}`), 'the run');
    expect((await bridge.post(agentSessionStopped({ channel: CHANNEL, thread_ts: session.threadTs, user: ALLOWED }))).status).toBe(200);
    await until(() => emulator.engine.get(run.run_id)?.state === 'CANCELLED', 'the run cancelled');
    await until(() => statuses(session.threadTs).at(-1) === 'active', 'the session away from processing');
    await until(async () => (await service.store.trackedRuns.get(run.run_id))?.tracked === false, 'the end observed');
    await settled();
    expect(statuses(session.threadTs)).toEqual(['processing', 'active']);
  });

  it('someone who may not stop it is told privately; the run goes on and its session stays processing', async () => {
    const { ts, runId } = await startRun('upgrade the test runner');
    expect((await bridge.post(agentSessionStopped({ channel: CHANNEL, thread_ts: ts, user: REFUSED }))).status).toBe(200);
    const refusal = await until(() => slack.ephemerals(CHANNEL).find((message) => message.user === REFUSED), 'the private refusal');
    expect(refusal.text).toContain('slack.allowed_users');
    await settled();
    expect(await cancels(runId)).toEqual([]);
    expect(emulator.engine.get(runId)?.state).toBe('QUEUED');
    expect(statuses(ts)).toEqual(['processing']);
    emulator.engine.cancel(runId);
  });

  it('a stop for a thread with no run of ours is acknowledged and ignored: nothing stored, nothing owed', async () => {
    await settled();
    const [triggers, owed] = [await triggerCount(), await outboxCount()];
    const stop = eventCallback(agentSessionStopped({ channel: CHANNEL, thread_ts: nextTs(), user: ALLOWED }));
    expect((await postSlackEvent(events, SLACK_SECRET, stop)).status).toBe(200);
    expect(await triggerCount()).toBe(triggers);
    expect(await outboxCount()).toBe(owed);
  });
});

describe('the direct message under agent_view', () => {
  it('opening it owes the Messages tab’s suggested prompts (no thread), once a day', async () => {
    const opened = { type: 'app_home_opened', user: ALLOWED, channel: DM, tab: 'messages', event_ts: nextTs() };
    expect((await bridge.post(opened)).status).toBe(200);
    const prompts = await until(() => slack.callsTo('assistant.threads.setSuggestedPrompts').find((call) => call.args['channel_id'] === DM), 'the prompts');
    expect(prompts.args['thread_ts']).toBeUndefined();
    expect(Array.isArray(prompts.args['prompts']) && prompts.args['prompts'].length).toBeGreaterThan(0);
    expect((await bridge.post({ ...opened, event_ts: nextTs() })).status).toBe(200);
    await settled();
    expect(slack.callsTo('assistant.threads.setSuggestedPrompts').filter((call) => call.args['channel_id'] === DM)).toHaveLength(1);
  });

  it('a request routes as the channel the person views (app_context_changed) when it has a route, in its own thread; with nothing in view, as a DM', async () => {
    expect((await bridge.post(appContextChanged({ user: ALLOWED, entities: [channelEntity(CHANNEL)] }))).status).toBe(200);
    const viewing = nextTs();
    await bridge.post(directMessage({ user: ALLOWED, ts: viewing, text: 'add a health check' }));
    const routed = await until(() => runWith(messageKey(DM, viewing)), 'the run asked while viewing the channel');
    expect(routed.agent_config).toMatchObject({ environment_id: 'env_web', name: 'web' });
    // The DM message is the thread: the run reports there, and its session is there.
    await until(() => statuses(viewing, DM).includes('processing'), 'the DM thread’s session');

    // Slack's own example has no `user`: the person is the envelope's one authorization.
    const nothing = eventCallback(appContextChanged({ user: undefined }), {
      authorizations: [{ enterprise_id: null, team_id: SLACK_IDS.team, user_id: ALLOWED, is_bot: false, is_enterprise_install: false }],
    });
    expect((await postSlackEvent(events, SLACK_SECRET, nothing)).status).toBe(200);
    const plain = nextTs();
    await bridge.post(directMessage({ user: ALLOWED, ts: plain, text: 'add a readiness check' }));
    const direct = await until(() => runWith(messageKey(DM, plain)), 'the run asked with nothing in view');
    expect(direct.agent_config).toMatchObject({ name: 'slack' });
    expect(direct.agent_config?.environment_id).toBeUndefined();
  });
});
