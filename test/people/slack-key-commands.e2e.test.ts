/**
 * `/agent connect`, `/agent whoami`, `/agent disconnect` through real Bolt receiving signed
 * slash commands, on the service's SQLite file: answers are private, show only a key's last 4
 * characters, and the raw key reaches neither an answer nor any call to the fake Slack Web API.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyBox } from '../../src/people/key-box.js';
import { PersonKeys } from '../../src/people/person-keys.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite-store.js';
import type { FakeSlackApi } from '../fakes/slack-api.js';
import { SLACK_IDS } from '../fixtures/slack/ids.js';
import { type SlackBridge, startSlackBridge } from '../helpers/slack-bridge.js';

const BRIDGE_SECRET = 'bridge-secret-'.padEnd(48, 'k');
const ALICE_KEY = 'wk_personal_alice_c0ffee0123456789Zq7w';
const PUBLIC_URL = 'https://bridge.example.com';

let bridge: SlackBridge;
let slack: FakeSlackApi;
let store: SqliteStore;

beforeAll(async () => {
  bridge = await startSlackBridge({ env: { AGENT_BRIDGE_SECRET: BRIDGE_SECRET, PUBLIC_URL } });
  ({ slack } = bridge);
  // A second connection on the service's file: the key is connected as the console would store it.
  store = openSqliteStore({ path: join(bridge.cwd, 'bridge.db') });
  await new PersonKeys(store.personKeys, new KeyBox(BRIDGE_SECRET)).connect(SLACK_IDS.user, ALICE_KEY, Date.now() - 3 * 3_600_000);
});
afterAll(async () => {
  await store.close();
  await bridge.stop();
});

async function agent(user: string, text: string): Promise<{ response_type: string; text: string }> {
  const response = await bridge.command({ user_id: user, text });
  expect(response.status).toBe(200);
  return (await response.json()) as { response_type: string; text: string };
}

describe('/agent connect, whoami, disconnect', () => {
  it('whoami shows a connected key by its last 4 characters only, privately', async () => {
    const answer = await agent(SLACK_IDS.user, 'whoami');
    expect(answer.response_type).toBe('ephemeral');
    expect(answer.text).toContain('ending in `Zq7w` is connected (connected 3 h ago, not used yet)');
    expect(answer.text).not.toContain(ALICE_KEY.slice(0, -4));
  });

  it('whoami without a key says so and how to connect one', async () => {
    const answer = await agent(SLACK_IDS.otherUser, 'whoami');
    expect(answer.text).toMatch(/^No personal API key is connected/);
    expect(answer.text).toContain('/agent connect');
  });

  it('connect answers with the console’s key page under PUBLIC_URL, and never asks for the key in Slack', async () => {
    const answer = await agent(SLACK_IDS.otherUser, 'connect');
    expect(answer.response_type).toBe('ephemeral');
    expect(answer.text).toContain(`<${PUBLIC_URL}/console/my-key|your key page in the web console>`);
    expect(answer.text).toContain(`\`${SLACK_IDS.otherUser}\``);
    expect(answer.text).toContain('never paste it here');
  });

  it('"connect" followed by words is a request, not the subcommand', async () => {
    const answer = await agent(SLACK_IDS.otherUser, 'connect the billing service to the queue');
    expect(answer.text).toMatch(/^On it/);
  });

  it('disconnect removes the key from the database; a second disconnect finds none', async () => {
    expect((await agent(SLACK_IDS.user, 'disconnect')).text).toMatch(/^Your personal API key is removed/);
    expect(await store.personKeys.get(SLACK_IDS.user)).toBeUndefined();
    expect((await agent(SLACK_IDS.user, 'disconnect')).text).toMatch(/^No personal API key was connected/);
    expect((await agent(SLACK_IDS.user, 'whoami')).text).toMatch(/^No personal API key is connected/);
    // One audit entry: the removal that removed something.
    const entries = await store.audit.list({ limit: 10, act: 'key.removed' });
    expect(entries.map((entry) => [entry.personId, entry.surface])).toEqual([[SLACK_IDS.user, 'slack']]);
  });

  it('the raw key reached no call to the Slack Web API', () => {
    expect(slack.calls.length).toBeGreaterThan(0);
    expect(JSON.stringify(slack.calls)).not.toContain(ALICE_KEY);
  });
});
