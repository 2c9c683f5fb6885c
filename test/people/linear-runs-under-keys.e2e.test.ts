/**
 * A Linear label starts a run under its author's own key: the author
 * is the Slack user with the same confirmed email, or the one an admin linked on the console. Real
 * parts: the service receiving signed Linear webhooks (Slack on too, for users.lookupByEmail), the
 * Linear SDK against the fake Linear API, the emulator in owner visibility recording each run's creator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creatorUidFor } from '../../src/emulator/keys.js';
import { startFakeLinearApi, type FakeLinearApi } from '../fakes/linear-api.js';
import { LINEAR_IDS, labelAdded, linearDelivery } from '../fixtures/linear/index.js';
import { ADA, BOB, startPeopleBridge, type PeopleBridge } from '../helpers/people-bridge.js';
import { until } from '../helpers/until.js';
import { newIssue } from '../linear/linear-harness.js';

const LINEAR_SECRET = 'linear-webhook-secret-people-0123456789';
const SERVICE_KEY = 'svc_service_key_linear_0123456789Sv1c';
const ADA_KEY = 'wk_personal_ada_linear_0123456789Ad4x';
const BOB_KEY = 'wk_personal_bob_linear_9876543210B0b2';
const LINUS = { id: '0a1b2c3d-0000-4000-8000-0000000user5', name: 'Linus Linked', email: 'linus@elsewhere.example' };
const NOBODY = { id: '0a1b2c3d-0000-4000-8000-0000000user6', name: 'No Body', email: 'nobody@example.com' };

let linear: FakeLinearApi;
let bridge: PeopleBridge;
let slack: PeopleBridge['slack'];
let emulator: PeopleBridge['emulator'];
let service: PeopleBridge['service'];

beforeAll(async () => {
  linear = await startFakeLinearApi({
    users: [{ id: LINEAR_IDS.user.id, name: LINEAR_IDS.user.name, email: LINEAR_IDS.user.email }, LINUS, NOBODY],
  });
  bridge = await startPeopleBridge({
    surface: 'linear',
    env: { LINEAR_API_KEY: 'lin_api_people_0123456789', LINEAR_WEBHOOK_SECRET: LINEAR_SECRET, LINEAR_API_URL: linear.url },
    adaEmail: LINEAR_IDS.user.email,
    linkedUserId: LINUS.id,
    botToken: 'xoxb-linear-people',
    signingSecret: 'linear-people-signing-secret',
    bridgeSecret: 'bridge-secret-'.padEnd(48, 'l'),
    keys: { service: SERVICE_KEY, ada: ADA_KEY, bob: BOB_KEY },
  });
  ({ slack, emulator, service } = bridge);
});
afterAll(async () => {
  await bridge.close();
  await linear.close();
});

/** Labels a fresh issue `agent` as `actor`; answers the run it started. */
async function labelledBy(actor: { id: string; name: string }) {
  const { issue, data } = newIssue(linear);
  const { body, headers } = linearDelivery(LINEAR_SECRET, labelAdded(LINEAR_IDS.labels.agent, [LINEAR_IDS.labels.bug], data, { actor }));
  expect((await fetch(`${service.url}/linear/webhook`, { method: 'POST', headers, body })).status).toBe(200);
  const run = await until(() => emulator.engine.list({}).runs.find((candidate) => candidate.title?.startsWith(`${issue.identifier}:`)), 'the run', 15_000);
  const tracked = await until(() => service.store.trackedRuns.get(run.run_id), 'the tracked run');
  return { run, tracked };
}

describe('a Linear label starts a run under its author’s own key', () => {
  it('uses the key of the Slack user with the same confirmed email', async () => {
    const { run, tracked } = await labelledBy({ id: LINEAR_IDS.user.id, name: LINEAR_IDS.user.name });
    expect(emulator.engine.creatorOf(run.run_id)?.uid).toBe(creatorUidFor(ADA_KEY));
    expect(tracked.personalKeyOwner).toBe(ADA);
    expect(await service.store.personLinks.get('linear', LINEAR_IDS.user.id)).toMatchObject({ personId: ADA, how: 'email' });
    expect(slack.callsTo('users.lookupByEmail').map((call) => call.args['email'])).toEqual([LINEAR_IDS.user.email]);
  });

  it('uses the key of the Slack user an admin linked, without asking Slack', async () => {
    const lookups = slack.callsTo('users.lookupByEmail').length;
    const { run, tracked } = await labelledBy(LINUS);
    expect(emulator.engine.creatorOf(run.run_id)?.uid).toBe(creatorUidFor(BOB_KEY));
    expect(tracked.personalKeyOwner).toBe(BOB);
    expect(slack.callsTo('users.lookupByEmail')).toHaveLength(lookups);
  });

  it('uses the service key for a Linear user who is nobody in Slack', async () => {
    const { run, tracked } = await labelledBy(NOBODY);
    expect(emulator.engine.creatorOf(run.run_id)?.uid).toBe(creatorUidFor(SERVICE_KEY));
    expect(tracked.personalKeyOwner).toBeUndefined();
    expect(await service.store.personLinks.get('linear', NOBODY.id)).toBeUndefined();
  });
});
