/**
 * The Home tab says whether the person's own API key is connected: real
 * Bolt receiving signed `app_home_opened` events and slash commands, the fake Slack Web API recording
 * `views.publish`, keys stored sealed in the service's SQLite file. Only the last 4 characters show.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/main.js';
import { KeyBox } from '../../src/people/key-box.js';
import { markKeyRefused } from '../../src/people/key-refusals.js';
import { PersonKeys } from '../../src/people/person-keys.js';
import { homeDestination } from '../../src/slack/home-view.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite-store.js';
import type { FakeSlackApi, SlackCall } from '../fakes/slack-api.js';
import { postSlackEvent } from '../fakes/slack-signing.js';
import { eventCallback } from '../fixtures/slack/events.js';
import { SLACK_IDS, nextTs } from '../fixtures/slack/ids.js';
import { SLACK_SECRET, type SlackBridge, startSlackBridge } from '../helpers/slack-bridge.js';

const BRIDGE_SECRET = 'bridge-secret-'.padEnd(48, 'h');
const ADA_KEY = 'wk_personal_ada_0123456789abcdefHk42';
const ADA = SLACK_IDS.user;
const GRACE = SLACK_IDS.otherUser;

let bridge: SlackBridge;
let slack: FakeSlackApi, service: RunningService;
let store: SqliteStore;

beforeAll(async () => {
  bridge = await startSlackBridge({ env: { AGENT_BRIDGE_SECRET: BRIDGE_SECRET }, yaml: 'people:\n  attribution: personal_if_connected\n' });
  ({ slack, service } = bridge);
  // A second connection on the service's file: the key is connected as the console would store it.
  store = openSqliteStore({ path: join(bridge.cwd, 'bridge.db') });
  await new PersonKeys(store.personKeys, new KeyBox(BRIDGE_SECRET)).connect(ADA, ADA_KEY, Date.parse('2026-11-20T09:30:00Z'));
});
afterAll(async () => {
  await store.close();
  await bridge.stop();
});

const homeOpened = (user: string) => eventCallback({ type: 'app_home_opened', user, channel: SLACK_IDS.dm, tab: 'home', event_ts: nextTs() });
const publishesFor = (user: string) => slack.callsTo('views.publish').filter((call) => call.args['user_id'] === user);
/** The key line of a published Home view. */
const keyLine = (call: SlackCall) =>
  (call.args['view'] as { blocks: Array<{ block_id?: string; text?: { text: string } }> }).blocks.find((block) => block.block_id === 'home_key')?.text?.text;

async function openHome(user: string): Promise<SlackCall> {
  const before = publishesFor(user).length;
  expect((await postSlackEvent(bridge.events, SLACK_SECRET, homeOpened(user))).status).toBe(200);
  return bridge.until(() => publishesFor(user)[before], `the Home tab of ${user}`);
}

describe('the Home tab and the person’s key', () => {
  it('shows a connected key by its last 4 characters, when it was connected, and how to remove it', async () => {
    const view = await openHome(ADA);
    const line = keyLine(view) ?? '';
    expect(line).toContain('connected ····Hk42 since <!date^');
    expect(line).toContain('not used yet');
    expect(line).toContain('`/agent disconnect`');
    expect(JSON.stringify(view.args)).not.toContain(ADA_KEY.slice(0, -4));
  });

  it('tells someone without a key that their runs use the service’s key, and how to connect', async () => {
    const line = keyLine(await openHome(GRACE)) ?? '';
    expect(line).toContain('not connected');
    expect(line).toContain('use the service’s key');
    expect(line).toContain('`/agent connect`');
  });

  it('says so when the run API refused the key, on the next opening', async () => {
    await markKeyRefused(store.settings, ADA, { at: Date.parse('2026-11-25T08:00:00Z'), status: 401 });
    const line = keyLine(await openHome(ADA)) ?? '';
    expect(line).toContain('····Hk42 was refused by the run API (401)');
    expect(line).toContain('`/agent connect`');
  });

  it('is republished when the key is removed with /agent disconnect', async () => {
    const before = publishesFor(ADA).length;
    const answer = await bridge.command({ user_id: ADA, text: 'disconnect' });
    expect(answer.status).toBe(200);
    const view = await bridge.until(() => publishesFor(ADA)[before], 'the Home tab republished');
    expect(keyLine(view)).toContain('not connected');
    await bridge.until(
      async () => (await service.store.outbox.list({ destination: homeDestination(ADA) })).every((row) => row.state === 'sent'),
      'the Home rows',
    );
  });
});
