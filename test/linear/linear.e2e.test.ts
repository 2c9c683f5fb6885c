import { beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { FakeLinearApi } from '../fakes/linear-api.js';
import { LINEAR_IDS, issueCreated, linearEvilBodies, linearDelivery } from '../fixtures/linear/index.js';
import { useTrackerWorld } from '../helpers/tracker-world.js';
import {
  LINEAR_SECRET,
  commentOn,
  labelAdded,
  labelRemoved,
  newIssue,
  startFakeLinearApi,
  quiet,
  startLinearBridge,
  until,
  type LinearBridge,
} from './linear-harness.js';

/*
 * Linear end to end: signed deliveries to the running service, the real Linear SDK talking to the
 * fake GraphQL API (which records every mutation), the emulator as the run API.
 */

const API_KEY = 'linear-e2e-run-api-key';
const { agent, agentWeb, bug } = LINEAR_IDS.labels;
/** A third team the harness allows (LINEAR_YAML), to move issues to. */
const WEB = { id: '0a1b2c3d-0000-4000-8000-0000000team3', key: 'WEB' };
const world = useTrackerWorld({
  apiKey: API_KEY,
  startFake: () => startFakeLinearApi({ authorization: 'lin_api_e2e_0123456789abcdef', labels: [agent, agentWeb, bug] }),
  startBridge: (fake, emulator) => startLinearBridge({ fake, emulator }),
  resetEach: true,
});
let fake: FakeLinearApi, emulator: RunningEmulator, bridge: LinearBridge;
beforeAll(() => {
  ({ fake, emulator, bridge } = world);
});

const runsFor = (identifier: string) => emulator.engine.list({}).runs.filter((run) => run.title?.startsWith(`${identifier}:`));
const triggerCount = async () => Object.values(await bridge.service.store.triggers.countByState()).reduce((sum, count) => sum + count, 0);
const bodies = (identifier: string) => fake.comments(identifier).map((comment) => comment.body);

/** An issue labelled `agent` and its run, with the start comment posted. */
async function labelledIssue(title?: string) {
  const { issue, data } = newIssue(fake, title);
  const delivery = labelAdded(agent, [bug], data);
  expect((await bridge.deliver(delivery)).status).toBe(200);
  const run = await until(() => runsFor(issue.identifier)[0], 'the run');
  return { issue, data, delivery, run };
}

describe('a trigger label starts a run and the issue tells the story', () => {
  it('start comment, one run with prompt, comments and route, edits per state, one end comment with links', async () => {
    const { issue, data } = newIssue(fake, 'Fix the flaky login test');
    fake.addComment(issue.identifier, 'It fails on CI about once a day. Use pnpm.', { id: 'human-2', name: 'Grace Hopper' });
    expect((await bridge.deliver(labelAdded(agent, [bug], { ...data, description: 'See the last three builds.' }))).status).toBe(200);

    const start = await until(() => fake.comments(issue.identifier)[1], 'the start comment');
    const created = fake.callsTo('createComment').find((call) => (call.variables['input'] as { id: string }).id === start.id);
    expect((created?.variables['input'] as { body: string }).body).toMatch(new RegExp(`${issue.identifier}: Fix the flaky login test[\\s\\S]*Received`));
    const run = await until(() => runsFor(issue.identifier)[0], 'the run');
    expect(run.title).toBe(`${issue.identifier}: Fix the flaky login test`);
    expect(run.agent_config).toMatchObject({ environment_id: 'env_web', name: 'web' });
    expect(run.prompt).toContain(`Work on the Linear issue ${issue.identifier}: Fix the flaky login test`);
    expect(run.prompt).toContain('> See the last three builds.');
    expect(run.prompt).toContain('[Grace Hopper at');
    expect(run.prompt).toContain('> It fails on CI about once a day. Use pnpm.');
    // Our own start comment is status, not a requirement: it stays out of the prompt.
    expect(run.prompt).not.toContain('starting a run');

    await until(
      () =>
        fake
          .comments(issue.identifier)
          .find((comment) => comment.id === start.id)
          ?.body.includes(run.run_id),
      'the edit with the run id',
    );
    emulator.engine.drive(run.run_id, 'INPROGRESS');
    await until(
      () =>
        fake
          .comments(issue.identifier)
          .find((comment) => comment.id === start.id)
          ?.body.includes('INPROGRESS'),
      'the INPROGRESS edit',
    );
    emulator.engine.drive(run.run_id, 'SUCCEEDED', {
      artifacts: [{ artifact_type: 'PULL_REQUEST', data: { url: 'https://github.com/acme/web/pull/9', branch: 'fix' } }],
    });
    const done = await until(
      () => bodies(issue.identifier).find((body) => body.includes('https://github.com/acme/web/pull/9') && body.startsWith('✅')),
      'the end comment',
    );
    expect(done).toContain('/sessions/');
    // human comment, start comment, end comment: nothing else was created
    expect(fake.comments(issue.identifier)).toHaveLength(3);
    expect(fake.callsTo('createComment').every((call) => /^[0-9a-f-]{36}$/.test(String((call.variables['input'] as { id?: string }).id)))).toBe(true);
  });

  it('re-delivery under the same and a new delivery id, before and after the end and after a restart: nothing new', async () => {
    const { issue, delivery, run } = await labelledIssue();
    const same = { ...delivery, webhookTimestamp: Date.now() };
    const again = await bridge.deliver(same, { deliveryId: 'fixed-delivery-1' });
    expect(again.status).toBe(200);
    expect((await bridge.deliver(same, { deliveryId: 'fixed-delivery-1' })).body['outcome']).toBe('duplicate');
    expect((await bridge.deliver(same)).body['outcome']).not.toBe('stored');

    emulator.engine.drive(run.run_id, 'FAILED', { status_message: 'tests failed' });
    await until(() => bodies(issue.identifier).some((body) => body.includes('tests failed')), 'the failure comment');
    expect((await bridge.deliver({ ...delivery, webhookTimestamp: Date.now() })).body['outcome']).toBe('duplicate');

    await bridge.service.stop();
    bridge = world.bridge = await startLinearBridge({ fake, emulator: { baseUrl: emulator.baseUrl, apiKey: API_KEY }, cwd: bridge.cwd });
    expect((await bridge.deliver({ ...delivery, webhookTimestamp: Date.now() })).body['outcome']).toBe('duplicate');
    await quiet(bridge.service);
    expect(runsFor(issue.identifier)).toHaveLength(1);
    expect(fake.comments(issue.identifier).filter((comment) => comment.body.includes('Received'))).toHaveLength(0);
    expect(fake.comments(issue.identifier).filter((comment) => comment.body.startsWith('**agent-bridge**'))).toHaveLength(1);
  });

  it('the same label again, or a second trigger label, while the run is active starts nothing', async () => {
    const { issue, data, run } = await labelledIssue();
    await until(async () => (await bridge.service.store.trackedRuns.get(run.run_id)) !== undefined, 'the stored run');
    const readded = labelAdded(agent, [bug], { ...data, updatedAt: '2026-03-02T11:00:00.000Z' });
    expect((await bridge.deliver(readded)).body['outcome']).toBe('ignored');
    const second = labelAdded(agentWeb, [bug, agent], { ...data, updatedAt: '2026-03-02T11:05:00.000Z' });
    expect((await bridge.deliver(second)).body['outcome']).toBe('ignored');
    expect(runsFor(issue.identifier)).toHaveLength(1);
    expect(fake.comments(issue.identifier)).toHaveLength(1);
  });

  it('removing the trigger label cancels the run: the start comment says it is stopping, then ONE new comment says who', async () => {
    const { issue, data, run } = await labelledIssue();
    const start = await until(() => fake.comments(issue.identifier).find((comment) => comment.body.includes(run.run_id)), 'the start comment with the run');
    const removed = labelRemoved(
      agent,
      [bug],
      { ...data, updatedAt: '2026-03-02T12:00:00.000Z' },
      { actor: { id: LINEAR_IDS.otherUser.id, name: 'Grace Hopper', type: 'user' } },
    );
    expect((await bridge.deliver(removed)).status).toBe(200);
    await until(() => emulator.engine.get(run.run_id)?.state === 'CANCELLED', 'the cancel');
    await until(() => bodies(issue.identifier).some((body) => body.includes('Cancelled by Grace Hopper')), 'the cancelled comment');
    await quiet(bridge.service);
    // The start comment and the CANCELLED comment: the stop itself was an edit, not a comment.
    expect(fake.comments(issue.identifier)).toHaveLength(2);
    const edits = fake
      .callsTo('updateComment')
      .filter((call) => call.variables['id'] === start.id)
      .map((call) => String((call.variables['input'] as { body: string }).body));
    expect(edits.some((body) => /stopping/i.test(body) && body.includes('Grace Hopper'))).toBe(true);
  });

  it('an issue moved to another team (new identifier, same id) keeps its run: a comment and the label removal reach it', async () => {
    const { issue, data, run } = await labelledIssue('Move me');
    await until(() => fake.comments(issue.id).find((comment) => comment.body.includes(run.run_id)), 'the start comment with the run');
    const identifier = `WEB-${issue.identifier.split('-')[1]}`;
    const moved = { ...issue, identifier, url: `https://linear.app/acme/issue/${identifier}`, team: WEB };
    fake.addIssue(moved);
    expect((await bridge.deliver(commentOn(moved, '@agent also update the docs'))).status).toBe(200);
    await until(() => emulator.engine.followups(run.run_id).length === 1, 'the follow-up after the move');
    const movedData = { ...data, identifier, url: moved.url, team: WEB, teamId: WEB.id, updatedAt: '2026-03-02T13:00:00.000Z' };
    expect(
      (await bridge.deliver(labelRemoved(agent, [bug], movedData, { actor: { id: LINEAR_IDS.otherUser.id, name: 'Grace Hopper', type: 'user' } }))).status,
    ).toBe(200);
    await until(() => emulator.engine.get(run.run_id)?.state === 'CANCELLED', 'the cancel after the move');
    await until(() => bodies(issue.id).some((body) => body.includes('Cancelled by Grace Hopper')), 'the cancelled comment');
    // People still see the identifier the run was started with.
    expect((await bridge.service.store.trackedRuns.get(run.run_id))?.title).toBe(`${issue.identifier}: Move me`);
  });

  it('a team that is not allowed starts nothing', async () => {
    const { issue, data } = newIssue(fake);
    const other = labelAdded(agent, [bug], { ...data, team: LINEAR_IDS.otherTeam, teamId: LINEAR_IDS.otherTeam.id });
    expect((await bridge.deliver(other)).body['outcome']).toBe('ignored');
    await quiet(bridge.service);
    expect(runsFor(issue.identifier)).toHaveLength(0);
    expect(fake.comments(issue.identifier)).toHaveLength(0);
  });
});

describe('comments steer and stop the run', () => {
  it('a handle comment is a follow-up (✉️ on it); after the end it continues the run', async () => {
    const { issue, run } = await labelledIssue();
    await until(async () => (await bridge.service.store.anchors.currentRun(`linear:${issue.id}`)) === run.run_id, 'the link');
    const human = fake.addComment(issue.identifier, '@agent also bump the version');
    expect((await bridge.deliver(commentOn(issue, '@agent also bump the version', { id: human.id }))).status).toBe(200);
    await until(() => emulator.engine.followups(run.run_id).length === 1, 'the follow-up');
    expect(emulator.engine.followups(run.run_id)[0]?.message).toBe('also bump the version');
    await until(() => fake.reactions.find((reaction) => reaction.commentId === human.id), 'the ✉️ reaction');

    emulator.engine.drive(run.run_id, 'SUCCEEDED');
    await until(() => bodies(issue.identifier).some((body) => body.startsWith('✅')), 'the end comment');
    expect((await bridge.deliver(commentOn(issue, '@agent one more thing: update the changelog'))).status).toBe(200);
    await until(() => emulator.engine.followups(run.run_id).length === 2, 'the follow-up after the end');
    expect(runsFor(issue.identifier)).toHaveLength(1);
  });

  it('a comment without the handle is not a follow-up (followups: mentions); "@agent stop" cancels', async () => {
    const { issue, run } = await labelledIssue();
    await until(async () => (await bridge.service.store.anchors.currentRun(`linear:${issue.id}`)) === run.run_id, 'the link');
    expect((await bridge.deliver(commentOn(issue, 'nice, thanks'))).body['outcome']).toBe('ignored');
    const stop = fake.addComment(issue.identifier, '@Agent stop');
    expect((await bridge.deliver(commentOn(issue, '@Agent stop', { id: stop.id }))).status).toBe(200);
    await until(() => emulator.engine.get(run.run_id)?.state === 'CANCELLED', 'the cancel');
    expect(emulator.engine.followups(run.run_id)).toHaveLength(0);
    // The stop is acknowledged with a reaction on the comment that asked; the end is one new comment.
    await until(() => fake.reactions.find((reaction) => reaction.commentId === stop.id), 'the reaction on the stop comment');
    await until(() => bodies(issue.identifier).some((body) => body.startsWith('Cancelled by')), 'the cancelled comment');
    await quiet(bridge.service);
    expect(bodies(issue.identifier).filter((body) => !body.startsWith('**agent-bridge**') && body !== '@Agent stop')).toEqual(['Cancelled by Ada Lovelace']);
  });

  it('a handle comment on an issue without a run says how to start one; a plain comment says nothing', async () => {
    const { issue } = newIssue(fake);
    expect((await bridge.deliver(commentOn(issue, '@agent can you look at this?'))).status).toBe(200);
    const notice = await until(() => fake.comments(issue.identifier)[0], 'the notice');
    expect(notice.body).toContain('There is no run on this issue');
    expect(notice.body).toContain('`@agent new <what to do>`');
    expect((await bridge.deliver(commentOn(issue, 'just a note'))).body['outcome']).toBe('ignored');
    await quiet(bridge.service);
    expect(fake.comments(issue.identifier)).toHaveLength(1);
    expect(runsFor(issue.identifier)).toHaveLength(0);
  });

  it('our own comments never count: by id (API user, no botActor) and by botActor', async () => {
    const { issue, run } = await labelledIssue();
    const start = await until(() => fake.comments(issue.identifier)[0], 'the start comment');
    const apiUser = { userId: LINEAR_IDS.apiUser.id, user: { id: LINEAR_IDS.apiUser.id, name: LINEAR_IDS.apiUser.name } };
    expect((await bridge.deliver(commentOn(issue, `@agent ${start.body}`, { id: start.id, ...apiUser }))).body['outcome']).toBe('ignored');
    expect(
      (await bridge.deliver(commentOn(issue, '@agent stop', { botActor: { id: 'app', type: 'oauthClient', name: 'agent-bridge' } }))).body['outcome'],
    ).toBe('ignored');
    await quiet(bridge.service);
    expect(emulator.engine.followups(run.run_id)).toHaveLength(0);
    expect(emulator.engine.get(run.run_id)?.state).not.toBe('CANCELLED');
  });
});

describe('failures are said in words', () => {
  it('a run API that refuses the create: the start comment and a new comment say why, without the key', async () => {
    await fetch(`${emulator.url}/_emulator/faults`, { method: 'POST', body: JSON.stringify({ count: 1, status: 400, match: 'POST /agent/run' }) });
    const { issue, data } = newIssue(fake);
    expect((await bridge.deliver(labelAdded(agent, [bug], data))).status).toBe(200);
    const failure = await until(() => bodies(issue.identifier).find((body) => body.startsWith('Could not start')), 'the failure comment');
    expect(failure).not.toContain(API_KEY);
    await until(() => bodies(issue.identifier).some((body) => body.includes('not started')), 'the edited start comment');
  });

  it('a Linear API that fails for a while: the comment is created once, under its client-chosen id', async () => {
    fake.failNext('createComment', { status: 500, count: 2 });
    const { issue } = await labelledIssue();
    const start = await until(() => fake.comments(issue.identifier)[0], 'the start comment');
    // Tried, failed, retried under the same id (the first failure may have hit another test's comment).
    expect(fake.callsTo('createComment').filter((call) => (call.variables['input'] as { id: string }).id === start.id).length).toBeGreaterThanOrEqual(2);
    expect(fake.comments(issue.identifier).filter((comment) => comment.body.includes('**agent-bridge**'))).toHaveLength(1);
    expect(start.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe('bad input gets a clear answer and changes nothing', () => {
  it.each(linearEvilBodies().map((evil) => [evil.name, evil] as const))('%s', async (_name, evil) => {
    const triggers = await triggerCount();
    const { body, headers } = linearDelivery(LINEAR_SECRET, evil.body);
    const response = await fetch(bridge.webhook, { method: 'POST', headers, body });
    expect(evil.statuses).toContain(response.status);
    expect(response.status).toBeLessThan(500);
    // A trigger is stored before the 200 or never: counting them right after the answer is exact.
    expect(await triggerCount()).toBe(evil.expect === 'handle' && response.status === 200 ? triggers + 1 : triggers);
  });

  it.each([
    ['a wrong signature', { signature: 'ab'.repeat(32) }, 401],
    ['no signature', { signature: '' }, 401],
  ])('%s → %i and nothing stored', async (_what, options, status) => {
    const { data } = newIssue(fake);
    const response = await bridge.deliver(issueCreated({ ...data, labels: [agent] }), options);
    expect(response.status).toBe(status);
    expect(JSON.stringify(response.body)).not.toContain(LINEAR_SECRET);
  });

  it('a stale timestamp → 401; an unknown type → 200 ignored; an oversized body → 413', async () => {
    const { data } = newIssue(fake);
    expect((await bridge.deliver(issueCreated({ ...data, labels: [agent] }, { webhookTimestamp: Date.now() - 120_000 }))).status).toBe(401);
    const unknown = await bridge.deliver({ action: 'create', type: 'Reaction', data: { id: 'r1', emoji: '+1' }, webhookTimestamp: Date.now() });
    expect(unknown).toMatchObject({ status: 200, body: { outcome: 'ignored' } });
    const huge = JSON.stringify({ action: 'create', type: 'Issue', data: { description: 'x'.repeat(2 * 1024 * 1024) }, webhookTimestamp: Date.now() });
    expect((await bridge.deliver(huge)).status).toBe(413);
  });
});
