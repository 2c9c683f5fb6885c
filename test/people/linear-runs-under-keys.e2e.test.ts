/**
 * A Linear label starts a run under its author's own key (issue 20, point 4, "Done when"): the author
 * is the Slack user with the same confirmed email, or the one an admin linked on the console. Real
 * parts: the service receiving signed Linear webhooks (Slack on too, for users.lookupByEmail), the
 * Linear SDK against the fake Linear API, the emulator in owner visibility recording each run's creator.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { creatorUidFor } from '../../src/emulator/keys.js';
import type { RunningService } from '../../src/main.js';
import { KeyBox } from '../../src/people/key-box.js';
import { PersonKeys } from '../../src/people/person-keys.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite-store.js';
import { startFakeLinearApi, type FakeLinearApi } from '../fakes/linear-api.js';
import { startFakeSlackApi, type FakeSlackApi } from '../fakes/slack-api.js';
import { LINEAR_IDS, labelAdded, linearDelivery } from '../fixtures/linear/index.js';
import { startBridge } from '../helpers/start-bridge.js';
import { until } from '../helpers/until.js';
import { newIssue } from '../linear/linear-harness.js';

const LINEAR_SECRET = 'linear-webhook-secret-people-0123456789';
const BOT_TOKEN = 'xoxb-linear-people';
const BRIDGE_SECRET = 'bridge-secret-'.padEnd(48, 'l');
const SERVICE_KEY = 'svc_service_key_linear_0123456789Sv1c';
const ADA_KEY = 'wk_personal_ada_linear_0123456789Ad4x';
const BOB_KEY = 'wk_personal_bob_linear_9876543210B0b2';
const ADA = 'U0ADA0001';
const BOB = 'U0BOB0002';
const LINUS = { id: '0a1b2c3d-0000-4000-8000-0000000user5', name: 'Linus Linked', email: 'linus@elsewhere.example' };
const NOBODY = { id: '0a1b2c3d-0000-4000-8000-0000000user6', name: 'No Body', email: 'nobody@example.com' };

let linear: FakeLinearApi;
let slack: FakeSlackApi;
let emulator: RunningEmulator;
let service: RunningService;
let store: SqliteStore;

beforeAll(async () => {
  linear = await startFakeLinearApi({
    users: [{ id: LINEAR_IDS.user.id, name: LINEAR_IDS.user.name, email: LINEAR_IDS.user.email }, LINUS, NOBODY],
  });
  slack = await startFakeSlackApi({ token: BOT_TOKEN });
  slack.setUser(ADA, { real_name: 'Ada Lovelace', email: LINEAR_IDS.user.email });
  slack.setUser(BOB, { real_name: 'Bob', email: 'bob@example.com' });
  emulator = await startEmulator({ apiKey: SERVICE_KEY, port: 0, manual: true, visibility: 'owner' });
  let cwd: string;
  ({ service, cwd } = await startBridge({
    agentApi: { baseUrl: emulator.baseUrl, apiKey: SERVICE_KEY },
    env: {
      LINEAR_API_KEY: 'lin_api_people_0123456789',
      LINEAR_WEBHOOK_SECRET: LINEAR_SECRET,
      LINEAR_API_URL: linear.url,
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_SIGNING_SECRET: 'linear-people-signing-secret',
      SLACK_API_URL: slack.url,
      AGENT_BRIDGE_SECRET: BRIDGE_SECRET,
    },
    yaml: ['tracker:', '  interval: 1s', 'people:', '  attribution: personal_if_connected', 'linear:', '  labels:', '    agent: {}'].join('\n'),
  }));
  // A second connection on the service's file: keys and a link as the console would store them.
  store = openSqliteStore({ path: join(cwd, 'bridge.db') });
  const people = new PersonKeys(store.personKeys, new KeyBox(BRIDGE_SECRET));
  await people.connect(ADA, ADA_KEY, Date.now());
  await people.connect(BOB, BOB_KEY, Date.now());
  await store.personLinks.put({ surface: 'linear', userId: LINUS.id, personId: BOB, how: 'console', linkedAt: Date.now() });
});
afterAll(async () => {
  await store.close();
  await service.stop();
  await emulator.close();
  await linear.close();
  await slack.close();
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
