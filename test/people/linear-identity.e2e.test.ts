/**
 * Linear people: a Linear label trigger by a Linear user whose email is a Slack
 * user's confirmed email belongs to that Slack user. Real parts: the service receiving a signed
 * webhook, the Linear SDK against the fake Linear GraphQL API, Slack's WebClient against the fake Slack
 * Web API (`users.lookupByEmail`), the link kept in the service's SQLite database.
 */
import { LinearClient } from '@linear/sdk';
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { personIdentity } from '../../src/compose/people.js';
import type { PersonIdentity } from '../../src/core/ports/identity.js';
import type { Requester } from '../../src/core/ports/triggers.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { sdkLinearApi } from '../../src/linear/linear-api.js';
import { webClientOptions } from '../../src/slack/slack-app.js';
import { slackUserByEmail } from '../../src/slack/user-directory.js';
import { CapturingLogger } from '../core/capturing-logger.js';
import { startFakeSlackApi, type FakeSlackApi } from '../fakes/slack-api.js';
import { LINEAR_IDS } from '../fixtures/linear/index.js';
import { LINEAR_KEY, labelAdded, newIssue, startFakeLinearApi, startLinearBridge, until, type LinearBridge } from '../linear/linear-harness.js';
import type { FakeLinearApi } from '../fakes/linear-api.js';

const API_KEY = 'emulator-key-identity-0123456789';
const SLACK_TOKEN = 'xoxb-identity-test';
let emulator: RunningEmulator;
let linear: FakeLinearApi;
let slack: FakeSlackApi;
let bridge: LinearBridge;
let identity: PersonIdentity;
const logger = new CapturingLogger();

beforeAll(async () => {
  emulator = await startEmulator({ apiKey: API_KEY, port: 0, manual: true });
  linear = await startFakeLinearApi({
    users: [
      { id: LINEAR_IDS.user.id, name: LINEAR_IDS.user.name, email: LINEAR_IDS.user.email },
      { id: LINEAR_IDS.otherUser.id, name: LINEAR_IDS.otherUser.name, email: LINEAR_IDS.otherUser.email },
    ],
  });
  slack = await startFakeSlackApi({ token: SLACK_TOKEN });
  // Slack compares emails without case; Grace's Slack email is not confirmed, so Slack does not find it.
  slack.setUser('U0ADA', { real_name: 'Ada Lovelace', email: 'Ada@Example.com' });
  slack.setUser('U0GRACE', { real_name: 'Grace Hopper', email: LINEAR_IDS.otherUser.email, email_confirmed: false });
  bridge = await startLinearBridge({ fake: linear, emulator: { baseUrl: emulator.baseUrl, apiKey: API_KEY }, logger });
  // The adapters the service composes, on the service's own database.
  const api = sdkLinearApi(new LinearClient({ apiKey: LINEAR_KEY, apiUrl: linear.url }));
  const client = new WebClient(SLACK_TOKEN, webClientOptions(slack.url));
  identity = personIdentity(
    bridge.service.store,
    { emailOf: { linear: (id) => api.userEmail(id) }, people: { slack: { userByEmail: (email) => slackUserByEmail(client, email) } } },
    { now: () => 5_000 },
    logger,
  );
});
afterAll(async () => {
  await bridge.service.stop();
  await emulator.close();
  await linear.close();
  await slack.close();
});

/** Labels a fresh issue as `actor` and answers the requester of the trigger the service stored. */
async function labelledBy(actor: { id: string; name: string }): Promise<Requester | undefined> {
  const { issue, data } = newIssue(linear);
  expect((await bridge.deliver(labelAdded(LINEAR_IDS.labels.agent, [LINEAR_IDS.labels.bug], data, { actor }))).status).toBe(200);
  const run = await until(() => emulator.engine.list({}).runs.find((candidate) => candidate.title?.startsWith(`${issue.identifier}:`)), 'the run');
  const tracked = await until(() => bridge.service.store.trackedRuns.get(run.run_id), 'the tracked run');
  const trigger = tracked.triggerKey ? await bridge.service.store.triggers.getByKey(tracked.triggerKey) : undefined;
  return trigger?.payload?.requester;
}

describe('a Linear label trigger belongs to the Slack user with the same confirmed email', () => {
  it('finds Ada by email, keeps the link, and asks no one the second time', async () => {
    const requester = await labelledBy(LINEAR_IDS.user);
    expect(requester).toMatchObject({ platform: 'linear', id: LINEAR_IDS.user.id });
    expect(await identity.personFor(requester)).toBe('U0ADA');
    expect(slack.callsTo('users.lookupByEmail').map((call) => call.args['email'])).toEqual([LINEAR_IDS.user.email]);
    expect(await bridge.service.store.personLinks.get('linear', LINEAR_IDS.user.id)).toEqual({
      surface: 'linear',
      userId: LINEAR_IDS.user.id,
      personId: 'U0ADA',
      how: 'email',
      linkedAt: 5_000,
    });

    const again = await labelledBy(LINEAR_IDS.user);
    expect(await identity.personFor(again)).toBe('U0ADA');
    expect(linear.callsTo('AgentBridgeUser')).toHaveLength(1);
    expect(slack.callsTo('users.lookupByEmail')).toHaveLength(1);
  });

  it('does not match an unconfirmed Slack email: the run is nobody’s (the service key)', async () => {
    const requester = await labelledBy(LINEAR_IDS.otherUser);
    expect(await identity.personFor(requester)).toBeUndefined();
    expect(slack.callsTo('users.lookupByEmail').at(-1)?.response).toMatchObject({ ok: false, error: 'users_not_found' });
    expect(await bridge.service.store.personLinks.get('linear', LINEAR_IDS.otherUser.id)).toBeUndefined();
  });

  it('answers nobody when Linear fails, logs a warning without the email, and never an error', async () => {
    const stranger = { id: '0a1b2c3d-0000-4000-8000-0000000user9', name: 'Stranger' };
    linear.addUser({ ...stranger, email: 'ada@example.com' });
    linear.failNext('AgentBridgeUser', { status: 500 });
    expect(await identity.personFor({ platform: 'linear', id: stranger.id })).toBeUndefined();
    const lines = logger.lines.filter((line) => line.msg?.includes('linear users'));
    expect(lines.some((line) => line.level === 'warn')).toBe(true);
    expect(lines.some((line) => line.level === 'error')).toBe(false);
    expect(JSON.stringify(lines)).not.toContain('ada@example.com');
    // The failure is not remembered: the next request finds the person.
    expect(await identity.personFor({ platform: 'linear', id: stranger.id })).toBe('U0ADA');
  });
});
