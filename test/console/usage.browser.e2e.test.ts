import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SLACK_IDS } from '../fixtures/slack/ids.js';
import { chromiumSkipNote, openPage, requireChromium } from '../helpers/chromium.js';
import { startSlackBridge, type SlackBridge } from '../helpers/slack-bridge.js';
import { until } from '../helpers/until.js';

/*
 * The usage page in a real Chromium against the real service: a Slack mention starts a run,
 * the emulator reports its usage growing, the tracker records it, and an admin reads it by person and
 * by route, with the per-day chart drawn server-side as SVG.
 */

const TOKEN = 'console-usage-admin-token-0123456789';
const CHANNEL = SLACK_IDS.channel;

const runs = requireChromium('usage page');
let bridge: SlackBridge;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  if (!runs) return;
  bridge = await startSlackBridge({
    channels: { [CHANNEL]: 'dev' },
    users: { [SLACK_IDS.user]: { display_name: 'ada' } },
    env: { CONSOLE_ADMIN_TOKEN: TOKEN },
    yaml: ['tracker:', '  interval: 1s', 'slack:', '  channels:', `    ${CHANNEL}: { config: { name: web } }`, ''].join('\n'),
  });
  ({ browser, page } = await openPage(1280, 900));
}, 60_000);

afterAll(async () => {
  if (!runs) return;
  await browser?.close();
  await bridge?.stop();
});

(runs ? describe : describe.skip)(`usage page in Chromium${chromiumSkipNote()}`, () => {
  it('an admin sees runs and credits by person and by route, a per-day SVG chart with a title, and the same numbers in a table', async () => {
    const { service, emulator } = bridge;
    // Signed out, the page is not shown: the sign-in form is.
    await page.goto(`${service.url}/console/usage`);
    expect(new URL(page.url()).pathname).toBe('/console/sign-in');
    await page.fill('input[name=token]', TOKEN);
    await page.click('button[type=submit]');
    // Signed in, back to the page asked for.
    await page.waitForURL(/\/console\/usage$/);

    const ts = await bridge.mention('Fix the flaky login test');
    const run = await until(() => bridge.runFor(CHANNEL, ts), 'the run');
    // Three state changes with a session: the emulator's usage grows 0.01 inference and 0.002 compute each.
    for (const state of ['INPROGRESS', 'INPROGRESS', 'INPROGRESS']) emulator.engine.drive(run.run_id, state);
    await until(async () => (await service.store.trackedRuns.get(run.run_id))?.usage?.inferenceCost === 0.03, 'the usage recorded');

    await page.goto(`${service.url}/console/usage`);
    expect(await page.locator('nav a[aria-current=page]').textContent()).toBe('Usage');
    expect(await page.locator('[data-testid=usage-total]').textContent()).toMatch(
      /1 run and 0\.036 credits in the last 30d \(inference\s+0\.03, compute 0\.006\)/,
    );
    const person = page.locator('[data-testid=usage-groups] tbody tr');
    expect(await person.count()).toBe(1);
    expect((await person.first().textContent())?.replace(/\s+/g, ' ').trim()).toBe(`ada (${SLACK_IDS.user}) 1 0.036 0.03 0.006`);

    const chart = page.locator('svg[data-testid=usage-chart]');
    expect(await chart.getAttribute('role')).toBe('img');
    expect(await chart.locator('title').first().textContent()).toBe('Credits per day (UTC)');
    // 30 days back and today: one bar each, today's the only one with height.
    expect(await chart.locator('rect').count()).toBe(31);
    const today = new Date().toISOString().slice(0, 10);
    expect(await chart.locator('rect').last().locator('title').textContent()).toBe(`${today}: 0.036 credits, 1 run`);
    expect(Number(await chart.locator('rect').last().getAttribute('height'))).toBeGreaterThan(0);
    expect(await page.locator(`[data-testid=usage-days] tr:has-text("${today}")`).textContent()).toMatch(/1\s*0\.036/);

    await page.selectOption('select[name=by]', 'route');
    await page.selectOption('select[name=since]', '7d');
    await page.click('form.filters button[type=submit]');
    await page.waitForURL(/by=route/);
    expect((await page.locator('[data-testid=usage-groups] tbody tr').first().textContent())?.replace(/\s+/g, ' ').trim()).toBe('web 1 0.036 0.03 0.006');
    expect(await chart.locator('rect').count()).toBe(8);
    // Nothing the page drew runs as script, and nothing was fetched from elsewhere.
    expect(await page.evaluate('typeof window.__pwned')).toBe('undefined');
  });
});
