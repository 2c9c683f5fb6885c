import { beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { FakeJiraApi } from '../fakes/jira-api.js';
import { PERSON, commentCreated, labelsChanged, type JiraIssueFixture } from '../fixtures/jira/webhooks.js';
import { useTrackerWorld } from '../helpers/tracker-world.js';
import { JIRA_EMAIL, JIRA_TOKEN, newIssue, quiet, startFakeJiraApi, startJiraBridge, until, type JiraBridge } from './jira-harness.js';

/*
 * Who may drive the agent from Jira (docs/jira.md): only people who may edit the issue — Jira's
 * permission search, asked in the background — and the accounts in jira.allowed_users start, steer and
 * stop runs. Customers, apps and comments without an author do nothing, and Jira is not even asked;
 * a person refused does nothing either, and the issue hears nothing of it.
 */

const API_KEY = 'jira-who-may-run-api-key';
const MALLORY = { accountId: '5f0000000000000000mallory', displayName: 'Mallory', accountType: 'atlassian' };
const LISTED = { accountId: '5f00000000000000000listed', displayName: 'Lisa Listed', accountType: 'atlassian' };
const CUSTOMER = { accountId: 'qm:0b1c2d3e:5f000customer', displayName: 'A customer', accountType: 'customer' };
const APP = { accountId: '5f0000000000000automation', displayName: 'Automation for Jira', accountType: 'app' };

const world = useTrackerWorld({
  apiKey: API_KEY,
  // A strict scheme: anyone may browse and comment; only Grace (PERSON) may edit ENG's issues.
  startFake: async () => {
    const fake = await startFakeJiraApi({ email: JIRA_EMAIL, apiToken: JIRA_TOKEN, anyoneMay: ['BROWSE_PROJECTS', 'ADD_COMMENTS'] });
    fake.grant('ENG', PERSON.accountId, 'EDIT_ISSUES');
    return fake;
  },
  startBridge: (fake, emulator) =>
    startJiraBridge({
      fake,
      emulator,
      yaml: `tracker:\n  interval: 1s\njira:\n  labels:\n    agent: {}\n  projects: [ENG]\n  allowed_users: [${LISTED.accountId}]\n`,
    }),
  resetEach: true,
});
let fake: FakeJiraApi, emulator: RunningEmulator, bridge: JiraBridge;
beforeAll(() => {
  ({ fake, emulator, bridge } = world);
});

const runsFor = (key: string) => emulator.engine.list({}).runs.filter((run) => run.title?.startsWith(`${key}:`));
const searches = (accountId?: string) =>
  fake.callsTo('GET', '/rest/api/3/user/permission/search').filter((call) => accountId === undefined || call.query.get('accountId') === accountId);
const writes = (key: string) => [...fake.callsTo('POST', `/rest/api/3/issue/${key}/comment`), ...fake.callsTo('PUT', `/rest/api/3/issue/${key}/comment/*`)];

/** An issue Grace labelled, with its run linked. */
async function gracesRun(): Promise<{ issue: JiraIssueFixture; runId: string }> {
  const issue = { ...newIssue(fake), labels: ['agent'] };
  expect((await bridge.deliver(labelsChanged(issue, []))).body['outcome']).toBe('stored');
  const run = await until(() => runsFor(issue.key)[0], 'the run');
  await until(async () => (await bridge.service.store.anchors.currentRun(`jira:${issue.key}`)) === run.run_id, 'the link');
  await quiet(bridge.service);
  return { issue, runId: run.run_id };
}

describe('only people who may edit the issue drive the agent', () => {
  it('someone who may only comment: their label starts nothing and the issue hears nothing; Jira was asked about them', async () => {
    const issue = { ...newIssue(fake), labels: ['agent'] };
    expect((await bridge.deliver(labelsChanged(issue, [], MALLORY))).body['outcome']).toBe('stored');
    await quiet(bridge.service);
    expect(runsFor(issue.key)).toHaveLength(0);
    // Not even the start comment: a stranger's request leaves no trace.
    expect(fake.comments(issue.key)).toHaveLength(0);
    expect(searches(MALLORY.accountId).map((call) => call.query.get('projectKey'))).toEqual(['ENG']);
    expect(searches(MALLORY.accountId)[0]?.query.get('permissions')).toBe('EDIT_ISSUES');
  });

  it('…nor do their @agent new, follow-up, stop or label removal on Grace’s run; Grace’s own stop does', async () => {
    const { issue, runId } = await gracesRun();
    const before = writes(issue.key).length;
    for (const body of ['@agent new do something else', '@agent and push to main', '@agent stop'])
      expect((await bridge.deliver(commentCreated(issue, body, MALLORY))).status).toBe(200);
    expect((await bridge.deliver(labelsChanged({ ...issue, labels: [] }, ['agent'], MALLORY))).status).toBe(200);
    await quiet(bridge.service);
    expect(runsFor(issue.key)).toHaveLength(1);
    expect(emulator.engine.followups(runId)).toEqual([]);
    expect(emulator.engine.get(runId)?.state).not.toBe('CANCELLED');
    expect(writes(issue.key)).toHaveLength(before);

    expect((await bridge.deliver(commentCreated(issue, '@agent stop'))).status).toBe(200);
    await until(() => emulator.engine.get(runId)?.state === 'CANCELLED', 'Grace’s stop');
  });

  it('customers, apps and comments without an author do nothing, and Jira is never asked about them', async () => {
    const { issue, runId } = await gracesRun();
    const asked = searches().length;
    const fresh = { ...newIssue(fake), labels: ['agent'] };
    const deliveries = [
      labelsChanged(fresh, [], CUSTOMER),
      labelsChanged(fresh, [], APP),
      { ...labelsChanged(fresh, []), user: undefined },
      commentCreated(issue, '@agent stop', CUSTOMER),
      commentCreated(issue, '@agent new mine now', APP),
      commentCreated(issue, '@agent stop', null as unknown as Record<string, unknown>),
      labelsChanged({ ...issue, labels: [] }, ['agent'], APP),
    ];
    for (const delivery of deliveries) expect((await bridge.deliver(delivery)).body).toMatchObject({ outcome: 'ignored' });
    await quiet(bridge.service);
    expect(searches().length).toBe(asked);
    expect(runsFor(fresh.key)).toHaveLength(0);
    expect(fake.comments(fresh.key)).toHaveLength(0);
    expect(runsFor(issue.key)).toHaveLength(1);
    expect(emulator.engine.get(runId)?.state).not.toBe('CANCELLED');
  });

  it('an account in jira.allowed_users starts, steers and stops without edit permission, and without a question', async () => {
    const issue = { ...newIssue(fake), labels: ['agent'] };
    expect((await bridge.deliver(labelsChanged(issue, [], LISTED))).status).toBe(200);
    const run = await until(() => runsFor(issue.key)[0], 'the listed person’s run');
    await until(() => fake.comments(issue.key).length > 0, 'the start comment');
    await until(async () => (await bridge.service.store.anchors.currentRun(`jira:${issue.key}`)) === run.run_id, 'the link');
    expect((await bridge.deliver(commentCreated(issue, '@agent also the docs', LISTED))).status).toBe(200);
    await until(() => emulator.engine.followups(run.run_id).length === 1, 'the follow-up');
    expect((await bridge.deliver(commentCreated(issue, '@agent stop', LISTED))).status).toBe(200);
    await until(() => emulator.engine.get(run.run_id)?.state === 'CANCELLED', 'the stop');
    expect(searches(LISTED.accountId)).toEqual([]);
  });
});
