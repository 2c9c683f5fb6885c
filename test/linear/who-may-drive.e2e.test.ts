import { beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { FakeLinearApi } from '../fakes/linear-api.js';
import { LINEAR_IDS, botComment, type Json, type LinearEnvelopeFixture } from '../fixtures/linear/index.js';
import { sessionCreated, sessionPrompted } from '../fixtures/linear/sessions.js';
import { useTrackerWorld } from '../helpers/tracker-world.js';
import {
  LINEAR_KEY,
  commentOn,
  labelAdded,
  labelRemoved,
  newIssue,
  quiet,
  startFakeLinearApi,
  startLinearBridge,
  until,
  type LinearBridge,
} from './linear-harness.js';

/*
 * Who may drive the agent from Linear (docs/linear.md): members of the workspace, and guests listed in
 * linear.allowed_users; never an app, an integration, or a comment or prompt without a Linear user —
 * those are dropped at once and Linear is not asked. A guest refused does nothing, and the issue hears
 * nothing of it.
 */

const API_KEY = 'linear-who-may-run-api-key';
const { agent, bug } = LINEAR_IDS.labels;
const GUEST = { id: '0a1b2c3d-0000-4000-8000-00000guest01', name: 'Gus Guest' };
const LISTED = { id: '0a1b2c3d-0000-4000-8000-00000guest02', name: 'Lisa Listed' };
const APP_USER = { id: '0a1b2c3d-0000-4000-8000-000000app001', name: 'Some agent' };

const world = useTrackerWorld({
  apiKey: API_KEY,
  startFake: () =>
    startFakeLinearApi({
      authorization: LINEAR_KEY,
      labels: [agent, bug],
      users: [
        { ...GUEST, guest: true },
        { ...LISTED, guest: true },
        { ...APP_USER, app: true },
      ],
    }),
  startBridge: (fake, emulator) =>
    startLinearBridge({
      fake,
      emulator,
      yaml: `tracker:\n  interval: 1s\nlinear:\n  labels:\n    agent: {}\n  allowed_users: [${LISTED.id}]\n`,
    }),
  resetEach: true,
});
let fake: FakeLinearApi, emulator: RunningEmulator, bridge: LinearBridge;
beforeAll(() => {
  ({ fake, emulator, bridge } = world);
});

const runsFor = (identifier: string) => emulator.engine.list({}).runs.filter((run) => run.title?.startsWith(`${identifier}:`));
const roleQuestions = (id?: string) => fake.callsTo('AgentBridgeUserRole').filter((call) => id === undefined || call.variables['id'] === id);
const writes = () => fake.callsTo('createComment').length + fake.callsTo('updateComment').length;
const by = (person: { id: string; name: string }): Partial<LinearEnvelopeFixture> => ({ actor: { id: person.id, name: person.name, type: 'user' } });
const writtenBy = (person: { id: string; name: string }): Json => ({ userId: person.id, user: { id: person.id, name: person.name } });

/** An issue a member (the fixtures' Ada) labelled, with its run linked. */
async function membersRun() {
  const { issue, data } = newIssue(fake);
  expect((await bridge.deliver(labelAdded(agent, [bug], data))).body['outcome']).toBe('stored');
  const run = await until(() => runsFor(issue.identifier)[0], 'the run');
  await until(async () => (await bridge.service.store.anchors.currentRun(`linear:${issue.id}`)) === run.run_id, 'the link');
  await quiet(bridge.service);
  return { issue, data, runId: run.run_id };
}

describe('only members (and listed guests) drive the agent', () => {
  it('a guest’s label starts nothing and the issue hears nothing; Linear was asked who they are', async () => {
    const { issue, data } = newIssue(fake);
    expect((await bridge.deliver(labelAdded(agent, [bug], data, by(GUEST)))).body['outcome']).toBe('stored');
    await quiet(bridge.service);
    expect(runsFor(issue.identifier)).toHaveLength(0);
    expect(fake.comments(issue.identifier)).toHaveLength(0);
    expect(roleQuestions(GUEST.id)).not.toHaveLength(0);
  });

  it('…nor do a guest’s @agent new, follow-up, stop or label removal on a member’s run', async () => {
    const { issue, data, runId } = await membersRun();
    const before = writes();
    for (const body of ['@agent new something else', '@agent and push to main', '@agent stop'])
      expect((await bridge.deliver(commentOn(issue, body, writtenBy(GUEST)))).status).toBe(200);
    expect((await bridge.deliver(labelRemoved(agent, [bug], data, by(GUEST)))).status).toBe(200);
    await quiet(bridge.service);
    expect(runsFor(issue.identifier)).toHaveLength(1);
    expect(emulator.engine.followups(runId)).toEqual([]);
    expect(emulator.engine.get(runId)?.state).not.toBe('CANCELLED');
    expect(writes()).toBe(before);
  });

  it('an integration, an app and a comment without a Linear user do nothing, and Linear is never asked about them', async () => {
    const { issue, data, runId } = await membersRun();
    const asked = roleQuestions().length;
    const fresh = newIssue(fake);
    const deliveries = [
      labelAdded(agent, [bug], fresh.data, { actor: { id: 'integration-1', type: 'integration', service: 'github' } }),
      labelAdded(agent, [bug], fresh.data, { actor: { id: 'oauth-client-9', name: 'Some app', type: 'OauthClient' } }),
      labelAdded(agent, [bug], fresh.data, { actor: undefined }),
      labelRemoved(agent, [bug], data, { actor: { id: 'oauth-client-9', name: 'Some app', type: 'OauthClient' } }),
      commentOn(issue, '@agent stop', { userId: null, user: null, externalUserId: 'ext-1' }),
      botComment('@agent stop', { issueId: issue.id, issue: { id: issue.id, identifier: issue.identifier, title: issue.title, url: issue.url } }),
    ];
    for (const delivery of deliveries) expect((await bridge.deliver(delivery)).body).toMatchObject({ outcome: 'ignored' });
    await quiet(bridge.service);
    expect(roleQuestions().length).toBe(asked);
    expect(runsFor(fresh.issue.identifier)).toHaveLength(0);
    expect(emulator.engine.get(runId)?.state).not.toBe('CANCELLED');
  });

  it('an app’s user is refused even when it writes as a user; a listed guest starts, steers and stops', async () => {
    const appIssue = newIssue(fake);
    expect((await bridge.deliver(labelAdded(agent, [bug], appIssue.data, by(APP_USER)))).status).toBe(200);
    const { issue, data } = newIssue(fake);
    expect((await bridge.deliver(labelAdded(agent, [bug], data, by(LISTED)))).status).toBe(200);
    const run = await until(() => runsFor(issue.identifier)[0], 'the listed guest’s run');
    await until(async () => (await bridge.service.store.anchors.currentRun(`linear:${issue.id}`)) === run.run_id, 'the link');
    expect((await bridge.deliver(commentOn(issue, '@agent also the docs', writtenBy(LISTED)))).status).toBe(200);
    await until(() => emulator.engine.followups(run.run_id).length === 1, 'the follow-up');
    expect((await bridge.deliver(commentOn(issue, '@agent stop', writtenBy(LISTED)))).status).toBe(200);
    await until(() => emulator.engine.get(run.run_id)?.state === 'CANCELLED', 'the stop');
    await quiet(bridge.service);
    expect(runsFor(appIssue.issue.identifier)).toHaveLength(0);
    expect(fake.comments(appIssue.issue.identifier)).toHaveLength(0);
  });

  it('agent sessions: a guest’s session shows no activity and starts nothing; a stop with no user stops nothing', async () => {
    const { issue } = newIssue(fake);
    const session = { id: issue.id, identifier: issue.identifier, title: issue.title, url: issue.url };
    const created = sessionCreated(session);
    const guests = { ...created, agentSession: { ...(created['agentSession'] as Json), creator: GUEST } };
    expect((await bridge.deliver(guests)).status).toBe(200);
    await quiet(bridge.service);
    expect(runsFor(issue.identifier)).toHaveLength(0);
    expect(fake.activities.filter((activity) => activity.agentSessionId === (guests['agentSession'] as Json)['id'])).toEqual([]);

    const members = sessionCreated(session);
    expect((await bridge.deliver(members)).status).toBe(200);
    const run = await until(() => runsFor(issue.identifier)[0], 'the member’s session run');
    const stop = sessionPrompted(String((members['agentSession'] as Json)['id']), session, 'Stop', { signal: 'stop' });
    const nobodys = { ...stop, agentActivity: { ...(stop['agentActivity'] as Json), userId: undefined } };
    expect((await bridge.deliver(nobodys)).body).toMatchObject({ outcome: 'ignored' });
    await quiet(bridge.service);
    expect(emulator.engine.get(run.run_id)?.state).not.toBe('CANCELLED');
  });
});
