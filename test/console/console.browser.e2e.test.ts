import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { RunningService } from '../../src/main.js';
import type { FakeSlackApi } from '../fakes/slack-api.js';
import { SLACK_IDS } from '../fixtures/slack/ids.js';
import { chromiumSkipNote, openPage, requireChromium } from '../helpers/chromium.js';
import { tempDir } from '../helpers/spawn-cli.js';
import { startSlackBridge, type SlackBridge } from '../helpers/slack-bridge.js';
import { until } from '../helpers/until.js';

/*
 * The web console in a real Chromium against the real service: Bolt receives signed Slack events, the
 * fake Slack Web API answers (and fails when told), the emulator plays the run API. Screenshots of the
 * main pages are taken on every run; with UPDATE_SCREENSHOTS=1 they replace the README's in
 * docs/console/, otherwise they go to a temporary folder so a test run leaves the checkout as it was.
 */

const TOKEN = 'console-browser-admin-token-0123456789';
const CHANNEL = SLACK_IDS.channel;
const SHOTS = process.env.UPDATE_SCREENSHOTS === '1' ? join(import.meta.dirname, '../../docs/console') : tempDir('console-shots-');
const HOSTILE_TITLE = `<script>window.__pwned=1</script>"><img src=x onerror="window.__pwned=2"> \u202Eevil\u200B title`;
const HOSTILE_NAME = `"><img src=x onerror="window.__pwned=3">\u202Eada`;

const runs = requireChromium('web console');
let bridge: SlackBridge;
let slack: FakeSlackApi, emulator: RunningEmulator, service: RunningService;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  if (!runs) return;
  bridge = await startSlackBridge({
    channels: { [CHANNEL]: 'dev' },
    users: { [SLACK_IDS.user]: { display_name: 'ada' } },
    env: { CONSOLE_ADMIN_TOKEN: TOKEN },
    yaml: [
      'tracker:',
      '  interval: 1s',
      'schedules:',
      '  - name: nightly-deps',
      '    cron: "0 3 * * 1-5"',
      '    timezone: Europe/Berlin',
      '    prompt: Update the dependencies and open a pull request.',
      '',
    ].join('\n'),
  });
  ({ slack, emulator, service } = bridge);
  ({ browser, page } = await openPage(1280, 800));
  mkdirSync(SHOTS, { recursive: true });
}, 60_000);

afterAll(async () => {
  if (!runs) return;
  await browser?.close();
  await bridge?.stop();
});

const mention = (text: string) => bridge.mention(text);
const runOf = (ts: string) => bridge.runFor(CHANNEL, ts);

(runs ? describe : describe.skip)(`web console in Chromium${chromiumSkipNote()}`, () => {
  it('sign in; a Slack mention appears as a run; its states and messages; cancel it; retry a failed delivery; trigger a schedule', async () => {
    await page.goto(`${service.url}/console/runs`);
    expect(new URL(page.url()).pathname).toBe('/console/sign-in');
    await page.fill('input[name=token]', TOKEN);
    await page.click('button[type=submit]');
    await page.waitForURL(/\/console\/runs$/);

    // The run appears on the open page without a reload (the page polls).
    const ts = await mention('Fix the flaky login test\nIt fails on CI about once a day.');
    const run = await until(() => runOf(ts), 'the run');
    const row = page.locator(`tr[data-run="${run.run_id}"]`);
    await row.waitFor({ timeout: 15_000 });
    expect(await row.textContent()).toContain('Fix the flaky login test');
    expect(await page.evaluate("document.documentElement.hasAttribute('data-refreshed')")).toBe(true);
    emulator.engine.drive(run.run_id, 'INPROGRESS');
    await until(async () => (await service.store.trackedRuns.get(run.run_id))?.state === 'INPROGRESS', 'INPROGRESS tracked');
    await page.reload();
    await page.screenshot({ path: join(SHOTS, 'runs.png') });

    await row.locator('a').first().click();
    await page.waitForURL(/\/console\/run\?id=/);
    expect(await page.locator('[data-testid=states]').textContent()).toMatch(/QUEUED[\s\S]*INPROGRESS/);
    expect(await page.locator('[data-testid=deliveries]').textContent()).toContain('sent');
    expect(await page.locator('[data-testid=prompt]').textContent()).toContain('It fails on CI about once a day.');
    await page.screenshot({ path: join(SHOTS, 'run.png'), fullPage: true });

    await page.click('button:has-text("Cancel run")');
    await page.waitForSelector('[data-testid=run-state]:has-text("CANCELLED")', { timeout: 15_000 });
    expect(emulator.engine.list({}).runs.find((item) => item.run_id === run.run_id)?.state).toBe('CANCELLED');

    // A message the fake Slack refuses for good lands under "needs attention"; Retry sends it.
    slack.failNext('chat.postMessage', { error: 'channel_not_found' });
    await mention('Update the changelog');
    await page.goto(`${service.url}/console/attention`);
    const failed = page.locator('[data-testid=failed-deliveries] tr[data-delivery]');
    await failed.first().waitFor({ timeout: 15_000 });
    expect(await failed.first().textContent()).toContain('channel_not_found');
    await page.screenshot({ path: join(SHOTS, 'attention.png') });
    const id = Number(await failed.first().getAttribute('data-delivery'));
    await failed.first().locator('button:has-text("Retry")').click();
    await page.waitForSelector('text=Every message was delivered.', { timeout: 15_000 });
    await until(async () => (await service.store.outbox.list()).find((item) => item.id === id)?.state === 'sent', 'the retried delivery sent');

    await page.goto(`${service.url}/console/schedules`);
    const schedule = page.locator('[data-schedule="nightly-deps"]');
    expect(await schedule.locator('ol li').count()).toBe(5);
    expect(await schedule.locator('ol li').first().textContent()).toMatch(/03:00 \+0[12]:00 = .* (01|02):00 UTC/);
    await schedule.locator('button:has-text("Trigger now")').click();
    await page.waitForSelector('[data-schedule="nightly-deps"] [data-testid=fires] tr:has-text("manual:")', { timeout: 15_000 });
    await schedule.locator('button:has-text("Pause")').click();
    await page.waitForSelector('[data-schedule="nightly-deps"] [data-testid=paused]');
    await page.screenshot({ path: join(SHOTS, 'schedules.png'), fullPage: true });
    await schedule.locator('button:has-text("Resume")').click();
    await page.waitForSelector('text=Resumed.');

    await page.goto(`${service.url}/console/health`);
    expect(await page.locator('[data-testid=integrations]').textContent()).toMatch(/Slack\s*on/);
    await page.screenshot({ path: join(SHOTS, 'health.png') });
  }, 90_000);

  it('the audit trail lists what the first test did, newest first, filtered by act and by person, with no prompt text', async () => {
    await page.goto(`${service.url}/console/audit`);
    expect(await page.locator('nav a[aria-current="page"]').textContent()).toBe('Audit');
    const acts = () =>
      page.locator('tbody tr').evaluateAll((rows: Array<{ getAttribute(name: string): string | null }>) => rows.map((row) => row.getAttribute('data-act')));
    // Newest first: the schedule resumed, then paused, the delivery retried, the first run started.
    expect(await acts()).toEqual(expect.arrayContaining(['console.resume', 'console.pause', 'console.retry', 'run.cancelled', 'run.started']));
    const order = await acts();
    expect(order.indexOf('console.resume')).toBeLessThan(order.indexOf('console.pause'));
    expect(order.indexOf('console.pause')).toBeLessThan(order.indexOf('console.retry'));
    expect(order.indexOf('console.retry')).toBeLessThan(order.lastIndexOf('run.started'));
    expect(await page.locator('tbody').textContent()).not.toContain('flaky login');
    await page.screenshot({ path: join(SHOTS, 'audit.png'), fullPage: true });

    await page.selectOption('select[name=act]', 'run.started');
    await page.click('form.filters button[type=submit]');
    await page.waitForURL(/act=run.started/);
    expect(new Set(await acts())).toEqual(new Set(['run.started']));
    // The mention's start says who asked and why this route and key; the schedule's, that it was the schedule.
    expect(await page.locator('tbody').textContent()).toMatch(new RegExp(`${SLACK_IDS.user}[\\s\\S]*slack[\\s\\S]*route: slack key: service`));
    expect(await page.locator('tbody tr').first().textContent()).toMatch(/schedule[\s\S]*route: nightly-deps key: service/);

    await page.goto(`${service.url}/console/audit`);
    await page.fill('input[name=person]', 'console-admin');
    await page.click('form.filters button[type=submit]');
    await page.waitForURL(/person=console-admin/);
    // The admin token is `console-admin`: its repairs, and the cancel it asked for.
    expect(new Set(await acts())).toEqual(new Set(['console.resume', 'console.pause', 'console.retry', 'run.cancelled']));
  }, 60_000);

  it('renders hostile titles, prompts and names as text: no element is injected and no script runs', async () => {
    // As Slack sends it: its own markup is <…>, so a literal &, < and > arrive escaped.
    const ts = await mention(HOSTILE_TITLE.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;'));
    const run = await until(() => runOf(ts), 'the hostile run');
    await until(() => service.store.trackedRuns.get(run.run_id), 'the hostile run stored');
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${service.url}/console/runs`);
    const row = page.locator(`tr[data-run="${run.run_id}"]`);
    expect((await row.locator('td').first().textContent())?.trim()).toBe(run.title);
    await page.goto(`${service.url}/console/run?id=${encodeURIComponent(run.run_id)}`);
    expect((await page.locator('h1').textContent())?.trim()).toBe(run.title);
    // The prompt is quoted as sent, markup and all, as text.
    expect(run.prompt).toContain('<img src=x onerror=');
    expect(await page.locator('[data-testid=prompt]').textContent()).toBe(run.prompt);
    expect(await page.locator('img').count()).toBe(0);

    // The edges tidy titles; a title and a name stored as they came (another edge, an older version) are still text.
    const now = Date.now();
    await service.store.triggers.enqueue({
      trigger: {
        kind: 'start',
        key: 'console-hostile',
        source: 'cli',
        anchor: 'cli:hostile',
        payload: {
          prompt: 'p',
          title: HOSTILE_TITLE,
          origin: { source: 'cli' },
          destinations: ['log:hostile'],
          requester: { platform: 'cli', id: 'U1', name: HOSTILE_NAME },
        },
      },
      now,
    });
    const stored = { runId: 'hostile-run', anchor: 'cli:hostile', source: 'cli', title: HOSTILE_TITLE, route: {}, destinations: ['log:hostile'] };
    await service.store.trackedRuns.insert(
      { ...stored, triggerKey: 'console-hostile', state: 'QUEUED', serverUpdatedAt: null, sessionLink: 'javascript:window.__pwned=4' },
      now,
    );
    await page.goto(`${service.url}/console/runs`);
    const hostileRow = page.locator('tr[data-run="hostile-run"]');
    expect((await hostileRow.locator('td').nth(0).textContent())?.trim()).toBe(HOSTILE_TITLE);
    expect(await hostileRow.locator('td').nth(3).textContent()).toContain(HOSTILE_NAME);
    expect(await hostileRow.locator('a[href^="javascript:"]').count()).toBe(0);
    await page.goto(`${service.url}/console/run?id=hostile-run`);
    expect((await page.locator('h1').textContent())?.trim()).toBe(HOSTILE_TITLE);
    expect(await page.title()).toBe(`${HOSTILE_TITLE} · agent-bridge`);
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.locator('script:not([src="/console/assets/console.js"])').count()).toBe(0);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(errors).toEqual([]);
  }, 60_000);

  it('New run: a prompt typed into the form becomes a run, and the request page leads to it once it exists', async () => {
    await page.goto(`${service.url}/console/runs`);
    await page.click('[data-testid=new-run]');
    await page.waitForURL(/\/console\/runs\/new$/);
    await page.fill('textarea[name=prompt]', 'Write the release notes\nfor version 2');
    await page.click('form.new-run button[type=submit]');
    // The request page reloads itself until the intake worker has created the run, then leads to it.
    await page.waitForURL(/\/console\/run\?id=/, { timeout: 15_000 });
    expect((await page.locator('h1').textContent())?.trim()).toBe('Write the release notes');
    const runId = new URL(page.url()).searchParams.get('id') ?? '';
    expect(await service.store.trackedRuns.get(runId)).toMatchObject({ source: 'console', routeName: 'console' });
  }, 60_000);
});
