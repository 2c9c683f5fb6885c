import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/main.js';
import { startFakeOidcProvider, type FakeOidcProvider } from '../fakes/oidc-provider.js';
import { SLACK_IDS } from '../fixtures/slack/ids.js';
import { chromiumSkipNote, openPage, requireChromium } from '../helpers/chromium.js';
import { startSlackBridge, type SlackBridge } from '../helpers/slack-bridge.js';
import { until } from '../helpers/until.js';

/*
 * Sign in with Slack in a real Chromium: two people mention the bot in Slack (Bolt receives signed
 * events), one of them signs in to the console through the fake OpenID provider (real signed
 * id_tokens), sees only the run they asked for, and connects their personal key on their own page.
 */

const CLIENT_ID = '2222222222.3333333333';
const CLIENT_SECRET = 'slack-client-secret-browser-0123456789';
const KEY = 'wk_personal_browser_0123456789abcdefP4q9';
const CHANNEL = SLACK_IDS.channel;
const ADA = { userId: SLACK_IDS.user, teamId: SLACK_IDS.team, name: 'Ada Lovelace' };
const BOB = SLACK_IDS.otherUser;

const runs = requireChromium('Sign in with Slack');
let provider: FakeOidcProvider;
let bridge: SlackBridge;
let service: RunningService;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  if (!runs) return;
  provider = await startFakeOidcProvider({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
  bridge = await startSlackBridge({
    apiKey: KEY,
    channels: { [CHANNEL]: 'dev' },
    users: { [ADA.userId]: { display_name: 'ada' } },
    signIn: { issuer: provider.issuer, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET },
    env: { AGENT_BRIDGE_SECRET: 'bridge-secret-'.padEnd(40, 'b') },
    yaml: 'tracker:\n  interval: 1s\n',
  });
  ({ service } = bridge);
  ({ browser, page } = await openPage(1280, 800));
}, 60_000);

afterAll(async () => {
  if (!runs) return;
  await browser?.close();
  await bridge?.stop();
  await provider?.close();
});

const mention = (user: string, text: string) => bridge.mention(text, { channel: CHANNEL, user });
const runOf = (ts: string) => bridge.runFor(CHANNEL, ts);

(runs ? describe : describe.skip)(`Sign in with Slack in Chromium${chromiumSkipNote()}`, () => {
  it('signs in through the provider, sees only the runs they asked for, and connects their own key', async () => {
    const ada = await until(() => runOf(mentionsDone.ada), 'Ada’s run');
    const bob = await until(() => runOf(mentionsDone.bob), 'Bob’s run');
    await until(async () => (await service.store.trackedRuns.get(bob.run_id)) !== undefined, 'Bob’s run tracked');

    provider.signInAs(ADA);
    await page.goto(`${service.url}/console/runs`);
    expect(new URL(page.url()).pathname).toBe('/console/sign-in');
    await page.click('[data-testid=slack-sign-in]');
    await page.waitForURL(/\/console\/runs$/);
    expect(await page.locator('[data-testid=signed-in-as]').textContent()).toContain('Ada Lovelace');
    await page.locator(`tr[data-run="${ada.run_id}"]`).waitFor({ timeout: 15_000 });
    expect(await page.locator(`tr[data-run="${bob.run_id}"]`).count()).toBe(0);
    expect(await page.locator('header nav').textContent()).not.toContain('Needs attention');

    await page.goto(`${service.url}/console/run?id=${bob.run_id}`);
    expect(await page.locator('h1').textContent()).toBe('Not found');
    await page.goto(`${service.url}/console/health`);
    expect(await page.locator('h1').textContent()).toBe('Admins only');

    // The 403 page points to what a person may open.
    await page.click('main a:has-text("Your key")');
    await page.waitForURL(/\/console\/my-key$/);
    await page.fill('input[name=key]', KEY);
    await page.click('button:has-text("Check and connect")');
    await page.waitForSelector('text=Connected: the run API accepted the key');
    expect(await page.locator('[data-testid=my-key]').textContent()).toContain(`…${KEY.slice(-4)}`);
    expect(await page.content()).not.toContain(KEY);
    expect((await service.store.personKeys.get(ADA.userId))?.lastFour).toBe(KEY.slice(-4));

    await page.click('button:has-text("Disconnect")');
    await page.waitForSelector('text=No key is connected');
    expect(await service.store.personKeys.get(ADA.userId)).toBeUndefined();
  }, 60_000);
});

/** The two mentions, sent once the service is up (Ada's run, then Bob's). */
const mentionsDone = { ada: '', bob: '' };
beforeAll(async () => {
  if (!runs) return;
  mentionsDone.ada = await mention(ADA.userId, 'Fix the flaky login test');
  mentionsDone.bob = await mention(BOB, 'Update the changelog');
});
