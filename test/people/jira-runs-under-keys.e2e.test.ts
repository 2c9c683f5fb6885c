/**
 * A Jira label starts a run under its author's own key: the author is the Slack
 * user with the same email when Jira shows it, or the one an admin linked on the console; anyone else
 * runs under the service key. Real parts: the service receiving signed Jira webhooks (Slack on too, for
 * users.lookupByEmail), our REST client against the fake Jira, the emulator in owner visibility
 * recording each run's creator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creatorUidFor } from '../../src/emulator/keys.js';
import { startFakeJiraApi, type FakeJiraApi } from '../fakes/jira-api.js';
import { jiraDelivery, labelsChanged } from '../fixtures/jira/webhooks.js';
import { ADA, BOB, startPeopleBridge, type PeopleBridge } from '../helpers/people-bridge.js';
import { until } from '../helpers/until.js';
import { JIRA_EMAIL, JIRA_SECRET, JIRA_TOKEN, newIssue } from '../jira/jira-harness.js';

const SERVICE_KEY = 'svc_service_key_jira_0123456789Sv1c';
const ADA_KEY = 'wk_personal_ada_jira_0123456789Ad4x';
const BOB_KEY = 'wk_personal_bob_jira_9876543210B0b2';
const SHOWN = { accountId: '5f000000000000000000shown', displayName: 'Ada in Jira', emailAddress: 'ada@example.com' };
const HIDDEN = { accountId: '5f0000000000000000hidden', displayName: 'Hides Email' };
const LINKED = { accountId: '557058:f58131cb-b67d-43c7-b30d-6b58d40bd077', displayName: 'Linked by hand' };

let jira: FakeJiraApi;
let bridge: PeopleBridge;
let slack: PeopleBridge['slack'];
let emulator: PeopleBridge['emulator'];
let service: PeopleBridge['service'];

beforeAll(async () => {
  jira = await startFakeJiraApi({ email: JIRA_EMAIL, apiToken: JIRA_TOKEN, users: [SHOWN, HIDDEN, LINKED] });
  bridge = await startPeopleBridge({
    surface: 'jira',
    env: { JIRA_BASE_URL: jira.url, JIRA_EMAIL, JIRA_API_TOKEN: JIRA_TOKEN, JIRA_WEBHOOK_SECRET: JIRA_SECRET },
    adaEmail: 'ada@example.com',
    linkedUserId: LINKED.accountId,
    botToken: 'xoxb-jira-people',
    signingSecret: 'jira-people-signing-secret',
    bridgeSecret: 'bridge-secret-'.padEnd(48, 'j'),
    keys: { service: SERVICE_KEY, ada: ADA_KEY, bob: BOB_KEY },
  });
  ({ slack, emulator, service } = bridge);
});
afterAll(async () => {
  await bridge.close();
  await jira.close();
});

/** Labels a fresh issue `agent` as `user`; answers the run it started. */
async function labelledBy(user: { accountId: string; displayName: string }) {
  const issue = { ...newIssue(jira), labels: ['agent'] };
  const { body, headers } = jiraDelivery(JIRA_SECRET, labelsChanged(issue, [], user));
  expect((await fetch(`${service.url}/jira/webhook`, { method: 'POST', headers, body })).status).toBe(200);
  const run = await until(() => emulator.engine.list({}).runs.find((candidate) => candidate.title?.startsWith(`${issue.key}:`)), 'the run', 15_000);
  const tracked = await until(() => service.store.trackedRuns.get(run.run_id), 'the tracked run');
  return { run, tracked };
}

describe('a Jira label starts a run under its author’s own key', () => {
  it('uses the key of the Slack user with the email Jira shows', async () => {
    const { run, tracked } = await labelledBy(SHOWN);
    expect(emulator.engine.creatorOf(run.run_id)?.uid).toBe(creatorUidFor(ADA_KEY));
    expect(tracked.personalKeyOwner).toBe(ADA);
    expect(await service.store.personLinks.get('jira', SHOWN.accountId)).toMatchObject({ personId: ADA, how: 'email' });
  });

  it('uses the key of the Slack user an admin linked, without asking Slack', async () => {
    const lookups = slack.callsTo('users.lookupByEmail').length;
    const { run, tracked } = await labelledBy(LINKED);
    expect(emulator.engine.creatorOf(run.run_id)?.uid).toBe(creatorUidFor(BOB_KEY));
    expect(tracked.personalKeyOwner).toBe(BOB);
    expect(slack.callsTo('users.lookupByEmail')).toHaveLength(lookups);
  });

  it('uses the service key for an account whose email Jira does not show', async () => {
    const lookups = slack.callsTo('users.lookupByEmail').length;
    const { run, tracked } = await labelledBy(HIDDEN);
    expect(emulator.engine.creatorOf(run.run_id)?.uid).toBe(creatorUidFor(SERVICE_KEY));
    expect(tracked.personalKeyOwner).toBeUndefined();
    expect(slack.callsTo('users.lookupByEmail')).toHaveLength(lookups);
  });
});
