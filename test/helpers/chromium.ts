import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

/**
 * Debian's Chromium for the browser tests (`apt-get install -y chromium`; `.ci/run` installs it).
 * `CHROMIUM_PATH` points elsewhere. Without it the browser suites are skipped under a title that says
 * so — except under CI, where that is an error.
 */
export const CHROMIUM_PATH = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

export function requireChromium(what: string): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  const message = `browser tests "${what}" cannot run: no Chromium at ${CHROMIUM_PATH} (apt-get install -y chromium, or set CHROMIUM_PATH)`;
  if (process.env['CI']) throw new Error(`${message}. CI must run every browser test.`);
  console.warn(`SKIPPED: ${message}`);
  return false;
}

/** Title suffix for a skipped browser suite, so the report names what did not run. */
export function chromiumSkipNote(): string {
  return existsSync(CHROMIUM_PATH) ? '' : ` (SKIPPED: no Chromium at ${CHROMIUM_PATH})`;
}

/** Launches the Chromium at CHROMIUM_PATH (headless, no sandbox) and opens one page of `width` × `height`. */
export async function openPage(width: number, height: number): Promise<{ browser: Browser; page: Page }> {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: ['--no-sandbox'] });
  return { browser, page: await browser.newPage({ viewport: { width, height } }) };
}
