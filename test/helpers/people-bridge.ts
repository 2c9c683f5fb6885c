import { join } from 'node:path';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import type { RunningService } from '../../src/main.js';
import { KeyBox } from '../../src/people/key-box.js';
import { PersonKeys } from '../../src/people/person-keys.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite-store.js';
import { startFakeSlackApi, type FakeSlackApi } from '../fakes/slack-api.js';
import { startBridge } from './start-bridge.js';

/** Ada and Bob, the two Slack people with a key of their own in {@link startPeopleBridge}. */
export const ADA = 'U0ADA0001';
export const BOB = 'U0BOB0002';

export interface PeopleBridgeOptions {
  /** The tracker surface whose labels start runs (its `labels: agent: {}` section is written). */
  surface: 'jira' | 'linear';
  /** The tracker's environment (API URL, token, webhook secret). */
  env: Record<string, string>;
  /** Ada's email in Slack (the one the tracker shows for her). */
  adaEmail: string;
  /** The tracker account an admin linked to Bob on the console. */
  linkedUserId: string;
  /** Keys and secrets, distinct per test file. */
  botToken: string;
  signingSecret: string;
  bridgeSecret: string;
  keys: { service: string; ada: string; bob: string };
}

export interface PeopleBridge {
  slack: FakeSlackApi;
  emulator: RunningEmulator;
  service: RunningService;
  /** A second connection on the service's file, where the keys and the link were stored. */
  store: SqliteStore;
  close(): Promise<void>;
}

/**
 * The service with a tracker and Slack on, `personal_if_connected` attribution and an emulator in owner
 * visibility: Ada and Bob have connected their keys (stored as the console would), and Bob is linked
 * by hand to `linkedUserId`. Slack knows Ada by `adaEmail` and Bob by bob@example.com.
 */
export async function startPeopleBridge(options: PeopleBridgeOptions): Promise<PeopleBridge> {
  const slack = await startFakeSlackApi({ token: options.botToken });
  slack.setUser(ADA, { real_name: 'Ada Lovelace', email: options.adaEmail });
  slack.setUser(BOB, { real_name: 'Bob', email: 'bob@example.com' });
  const emulator = await startEmulator({ apiKey: options.keys.service, port: 0, manual: true, visibility: 'owner' });
  const { service, cwd } = await startBridge({
    agentApi: { baseUrl: emulator.baseUrl, apiKey: options.keys.service },
    env: {
      ...options.env,
      SLACK_BOT_TOKEN: options.botToken,
      SLACK_SIGNING_SECRET: options.signingSecret,
      SLACK_API_URL: slack.url,
      AGENT_BRIDGE_SECRET: options.bridgeSecret,
    },
    yaml: ['tracker:', '  interval: 1s', 'people:', '  attribution: personal_if_connected', `${options.surface}:`, '  labels:', '    agent: {}'].join('\n'),
  });
  const store = openSqliteStore({ path: join(cwd, 'bridge.db') });
  const people = new PersonKeys(store.personKeys, new KeyBox(options.bridgeSecret));
  await people.connect(ADA, options.keys.ada, Date.now());
  await people.connect(BOB, options.keys.bob, Date.now());
  await store.personLinks.put({ surface: options.surface, userId: options.linkedUserId, personId: BOB, how: 'console', linkedAt: Date.now() });
  return {
    slack,
    emulator,
    service,
    store,
    async close() {
      await store.close();
      await service.stop();
      await emulator.close();
      await slack.close();
    },
  };
}
