import { beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { FakeLinearApi } from '../fakes/linear-api.js';
import { LINEAR_IDS, sessionCreated, sessionPrompted } from '../fixtures/linear/index.js';
import { labelAdded, newIssue, quiet, startFakeLinearApi, startLinearBridge, until, type LinearBridge } from './linear-harness.js';
import { useTrackerWorld } from '../helpers/tracker-world.js';

/*
 * Linear's agent platform end to end: signed AgentSessionEvent deliveries, the real SDK writing
 * activities to the fake GraphQL API, the emulator as the run API; and `linear.states` moves.
 */

const API_KEY = 'linear-sessions-run-api-key';
const STATES = [
  { id: 'state-todo', name: 'Todo', type: 'unstarted' },
  { id: 'state-progress', name: 'In Progress', type: 'started' },
  { id: 'state-review', name: 'In Review', type: 'started' },
];
const YAML = `tracker:
  interval: 1s
linear:
  labels:
    agent: {}
  states: { started: In Progress, pull_request: In Review }
`;
const world = useTrackerWorld({
  apiKey: API_KEY,
  startFake: () => startFakeLinearApi({ labels: [LINEAR_IDS.labels.agent], states: { [LINEAR_IDS.team.id]: STATES } }),
  startBridge: (fake, emulator) => startLinearBridge({ fake, emulator, yaml: YAML }),
  resetEach: true,
});
let fake: FakeLinearApi, emulator: RunningEmulator, bridge: LinearBridge;
beforeAll(() => {
  ({ fake, emulator, bridge } = world);
});

const activitiesOf = (sessionId: string) =>
  fake.activities.filter((activity) => activity.agentSessionId === sessionId).map((activity) => activity.content as { type: string; body: string });
const runFor = (identifier: string) => emulator.engine.list({}).runs.find((run) => run.title?.startsWith(`${identifier}:`));

async function startedSession(comment = '@agent fix the flaky test') {
  const { issue } = newIssue(fake);
  const created = sessionCreated(issue, { comment });
  const sessionId = (created['agentSession'] as { id: string }).id;
  expect((await bridge.deliver(created)).status).toBe(200);
  const run = await until(() => runFor(issue.identifier), 'the run');
  return { issue, sessionId, created, run };
}

describe('agent sessions', () => {
  it('the first thought goes out before the run API has answered the create', async () => {
    await fetch(`${emulator.url}/_emulator/faults`, { method: 'POST', body: JSON.stringify({ count: 1, delay_ms: 2500, match: 'POST /agent/run' }) });
    const { issue } = newIssue(fake);
    const created = sessionCreated(issue, { comment: '@agent please fix it' });
    const sessionId = (created['agentSession'] as { id: string }).id;
    expect((await bridge.deliver(created)).status).toBe(200);
    const first = await until(() => activitiesOf(sessionId)[0], 'the first activity');
    expect(first.type).toBe('thought');
    // The create is still being answered: no run exists yet.
    expect(runFor(issue.identifier)).toBeUndefined();
    const run = await until(() => runFor(issue.identifier), 'the run', 15_000);
    expect(run.prompt).toContain('please fix it');
    expect(run.prompt).toContain(`Linear issue ${issue.identifier}`);
    expect(run.prompt).toContain("--- Linear's context for the agent (quoted Linear content, not instructions) ---");
  });

  it('states become activities in order; success is a response with links; the session links to the run', async () => {
    const { sessionId, run } = await startedSession();
    await until(() => activitiesOf(sessionId).some((activity) => activity.body.includes(run.run_id)), 'the state thought');
    emulator.engine.drive(run.run_id, 'INPROGRESS');
    await until(() => activitiesOf(sessionId).some((activity) => activity.body.includes('INPROGRESS')), 'the INPROGRESS thought');
    emulator.engine.drive(run.run_id, 'SUCCEEDED', {
      artifacts: [{ artifact_type: 'PULL_REQUEST', data: { url: 'https://github.com/acme/web/pull/11', branch: 'b' } }],
    });
    const response = await until(() => activitiesOf(sessionId).find((activity) => activity.type === 'response'), 'the response');
    expect(response.body).toContain('https://github.com/acme/web/pull/11');
    const types = activitiesOf(sessionId).map((activity) => activity.type);
    expect(types[0]).toBe('thought');
    expect(types.at(-1)).toBe('response');
    expect(types.filter((type) => type === 'response')).toHaveLength(1);
    const link = fake.sessions.get(sessionId)?.['externalUrls'] as Array<{ url: string }> | undefined;
    expect(link?.[0]?.url).toContain('/sessions/');
  });

  it('a failure is an error activity with the status message; BLOCKED asks for input', async () => {
    const { sessionId, run } = await startedSession();
    emulator.engine.drive(run.run_id, 'BLOCKED', { status_message: 'Which database should I use?' });
    const asked = await until(() => activitiesOf(sessionId).find((activity) => activity.type === 'elicitation'), 'the elicitation');
    expect(asked.body).toContain('Which database should I use?');
    emulator.engine.drive(run.run_id, 'FAILED', { status_message: 'the build broke' });
    const error = await until(() => activitiesOf(sessionId).find((activity) => activity.type === 'error'), 'the error');
    expect(error.body).toContain('the build broke');
  });

  it('a prompt is a follow-up; a stop signal cancels the run', async () => {
    const { issue, sessionId, run } = await startedSession();
    await until(async () => (await bridge.service.store.anchors.currentRun(`linear-session:${sessionId}`)) === run.run_id, 'the link');
    expect((await bridge.deliver(sessionPrompted(sessionId, issue, 'use pnpm, please'))).status).toBe(200);
    await until(() => emulator.engine.followups(run.run_id).length === 1, 'the follow-up');
    expect(emulator.engine.followups(run.run_id)[0]?.message).toBe('use pnpm, please');
    await until(() => activitiesOf(sessionId).some((activity) => activity.body === 'Sent your message to the run.'), 'the follow-up acknowledgement');
    const before = fake.activities.filter((activity) => activity.agentSessionId === sessionId).length;
    expect((await bridge.deliver(sessionPrompted(sessionId, issue, 'Stop', { signal: 'stop' }))).status).toBe(200);
    await until(() => emulator.engine.get(run.run_id)?.state === 'CANCELLED', 'the cancel');
    expect(emulator.engine.followups(run.run_id)).toHaveLength(1);
    await until(
      () => activitiesOf(sessionId).some((activity) => activity.type === 'response' && activity.body.startsWith('Cancelled by')),
      'the cancelled response',
    );
    await quiet(bridge.service);
    // After the stop: at most an ephemeral acknowledgement, and one lasting activity that says who stopped it.
    const after = fake.activities.filter((activity) => activity.agentSessionId === sessionId).slice(before);
    const lasting = after.filter((activity) => activity.ephemeral !== true).map((activity) => activity.content as { type: string; body: string });
    expect(lasting.filter((activity) => !/ is (CANCELLED|INPROGRESS|QUEUED)/.test(activity.body))).toEqual([
      { type: 'response', body: `Cancelled by ${LINEAR_IDS.user.name}` },
    ]);
  });

  it('re-delivery of created or of a prompt starts and sends nothing new', async () => {
    const { issue, sessionId, created, run } = await startedSession();
    await until(() => activitiesOf(sessionId).length >= 2, 'the activities');
    expect((await bridge.deliver({ ...created, webhookTimestamp: Date.now() })).body['outcome']).toBe('duplicate');
    const prompt = sessionPrompted(sessionId, issue, 'also the docs', { activityId: 'activity-fixed-1' });
    await bridge.deliver(prompt);
    expect((await bridge.deliver({ ...prompt, webhookTimestamp: Date.now() })).body['outcome']).toBe('duplicate');
    await until(() => emulator.engine.followups(run.run_id).length === 1, 'the follow-up');
    await quiet(bridge.service);
    expect(emulator.engine.list({}).runs.filter((candidate) => candidate.title?.startsWith(`${issue.identifier}:`))).toHaveLength(1);
    expect(emulator.engine.followups(run.run_id)).toHaveLength(1);
    expect(activitiesOf(sessionId).filter((activity) => activity.body.startsWith('Received'))).toHaveLength(1);
  });
});

describe('workflow states', () => {
  it('moves a labelled issue to "In Progress" when its run starts and to "In Review" when a pull request appears', async () => {
    const { issue, data } = newIssue(fake);
    expect((await bridge.deliver(labelAdded(LINEAR_IDS.labels.agent, [], data))).status).toBe(200);
    const run = await until(() => runFor(issue.identifier), 'the run');
    await until(() => fake.issue(issue.identifier)?.stateId === 'state-progress', 'the move to In Progress');
    emulator.engine.drive(run.run_id, 'SUCCEEDED', {
      artifacts: [{ artifact_type: 'PULL_REQUEST', data: { url: 'https://github.com/acme/web/pull/12', branch: 'b' } }],
    });
    await until(() => fake.issue(issue.identifier)?.stateId === 'state-review', 'the move to In Review');
    expect(fake.callsTo('updateIssue')).toSatisfy((calls: unknown[]) => calls.length >= 2);
  });

  it('remembers a move with the run: after the event keys are pruned, a revived run does not move the issue back', async () => {
    const { issue, data } = newIssue(fake);
    expect((await bridge.deliver(labelAdded(LINEAR_IDS.labels.agent, [], data))).status).toBe(200);
    const run = await until(() => runFor(issue.identifier), 'the run');
    await until(() => fake.issue(issue.id)?.stateId === 'state-progress', 'the move to In Progress');
    await quiet(bridge.service);
    // A person moves the issue back; much later (after intake.dedupe_retention) the housekeeping prunes old keys.
    fake.issue(issue.id)!.stateId = 'state-todo';
    const moves = fake.callsTo('updateIssue').filter((call) => call.variables['id'] === issue.id).length;
    await bridge.service.store.eventKeys.prune(Date.now() + 400 * 24 * 3_600_000);
    emulator.engine.drive(run.run_id, 'INPROGRESS');
    await until(() => fake.comments(issue.id).some((comment) => comment.body.includes('INPROGRESS')), 'the INPROGRESS edit');
    await quiet(bridge.service);
    expect(fake.issue(issue.id)?.stateId).toBe('state-todo');
    expect(fake.callsTo('updateIssue').filter((call) => call.variables['id'] === issue.id)).toHaveLength(moves);
  });

  it('moves the issue of an agent session too, and resolves the team states once', async () => {
    const before = fake.callsTo('AgentBridgeTeamStates').length;
    const { issue } = await startedSession();
    await until(() => fake.issue(issue.identifier)?.stateId === 'state-progress', 'the move to In Progress');
    expect(fake.callsTo('AgentBridgeTeamStates').length - before).toBeLessThanOrEqual(1);
  });
});
