/**
 * Slack's side of the service tells time by the service's injected clock, as the core does: the day a
 * person opened their Home tab, when the tab became a place of their earlier runs, and the Home
 * publish a key removed on the console owes. The service runs on a test clock years ahead of the
 * wall clock, so a reading of the wall clock shows. Real Bolt receives signed requests, the fake Slack
 * Web API answers, the emulator plays the run API, the console is served over real HTTP.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../../src/core/ports/clock.js';
import { referenceLine } from '../../src/core/ports/triggers.js';
import { KeyBox } from '../../src/people/key-box.js';
import { PersonKeys } from '../../src/people/person-keys.js';
import { homeDestination } from '../../src/slack/home-view.js';
import { messageKey } from '../../src/slack/normalise.js';
import { homeOpenedSetting } from '../../src/slack/setting-names.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite-store.js';
import { postSlackEvent } from '../fakes/slack-signing.js';
import { appMention, eventCallback } from '../fixtures/slack/events.js';
import { SLACK_IDS, nextTs } from '../fixtures/slack/ids.js';
import { consoleHttp, csrfIn, signInWithToken } from '../helpers/console-http.js';
import { SLACK_SECRET, startSlackBridge, type SlackBridge } from '../helpers/slack-bridge.js';

const DAY = '2031-03-04';
const clock = new TestClock(Date.parse(`${DAY}T10:00:00Z`));
const TOKEN = 'console-admin-token-injected-clock-01234';
const BRIDGE_SECRET = 'bridge-secret-'.padEnd(48, 'k');
const ADA = 'U0CLOCKADA1';
const GRACE = 'U0CLOCKGRACE';

let bridge: SlackBridge;
let store: SqliteStore;

beforeAll(async () => {
  bridge = await startSlackBridge({
    clock,
    env: { CONSOLE_ADMIN_TOKEN: TOKEN, AGENT_BRIDGE_SECRET: BRIDGE_SECRET },
    yaml: 'people:\n  attribution: personal_if_connected\n',
  });
  // A second connection on the service's file: Grace's key connected as the console would store it.
  store = openSqliteStore({ path: join(bridge.cwd, 'bridge.db') });
  await new PersonKeys(store.personKeys, new KeyBox(BRIDGE_SECRET)).connect(GRACE, 'wk_personal_grace_0123456789abcdeCl42', clock.now());
});
afterAll(async () => {
  await store?.close();
  await bridge?.stop();
});

/** Opens `user`'s Home tab and waits until every row owed to it is delivered. */
async function openHome(user: string): Promise<void> {
  const opened = eventCallback({ type: 'app_home_opened', user, channel: SLACK_IDS.dm, tab: 'home', event_ts: nextTs() });
  expect((await postSlackEvent(bridge.events, SLACK_SECRET, opened)).status).toBe(200);
  const rows = () => bridge.service.store.outbox.list({ destination: homeDestination(user) });
  await bridge.until(async () => (await rows()).length > 0 && (await rows()).every((row) => row.state === 'sent'), `the Home tab of ${user} published`);
}

describe("Slack's side on the service's clock", () => {
  it("remembers the day a Home tab was opened, and makes it a place of the person's earlier runs, at the clock's time", async () => {
    const mention = appMention({ channel: SLACK_IDS.channel, user: ADA, text: `<@${SLACK_IDS.botUser}> tidy the changelog` });
    expect((await bridge.post(mention)).status).toBe(200);
    const reference = referenceLine(messageKey(SLACK_IDS.channel, mention['ts'] as string));
    const run = await bridge.until(() => bridge.emulator.engine.list({}).runs.find((candidate) => candidate.prompt?.includes(reference)), 'the run');
    await bridge.until(async () => (await bridge.service.store.trackedRuns.get(run.run_id)) !== undefined, 'the run stored');
    await clock.advance(60_000);

    await openHome(ADA);
    expect(await bridge.service.store.settings.get(homeOpenedSetting(ADA))).toBe(DAY);
    const tracked = await bridge.service.store.trackedRuns.get(run.run_id);
    expect(tracked?.destinations).toContain(homeDestination(ADA));
    expect(tracked?.updatedAt).toBe(clock.now());
  });

  it("owes the Home publish of a key removed on the console at the clock's time", async () => {
    await openHome(GRACE);
    const http = consoleHttp(() => bridge.service.url);
    const cookie = await signInWithToken(http, TOKEN, '/console/keys');
    const csrf = csrfIn(await (await http.get('/console/keys', cookie)).text());
    const answer = await http.post('/console/keys/remove', { csrf, person: GRACE }, cookie);
    expect(answer.headers.get('location')).toBe('/console/keys?flash=key-removed');
    const keys = (await bridge.service.store.outbox.list({ destination: homeDestination(GRACE) })).map((row) => row.key);
    expect(keys).toContain(`home:${GRACE}:key-removed:${clock.now()}`);
  });
});
