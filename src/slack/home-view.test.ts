import { describe, expect, it } from 'vitest';
import { homeView, keyStatusText, type HomeKeyStatus } from './home-view.js';

const KEY = { lastFour: 'Zq7w', connectedAt: Date.parse('2026-11-20T09:30:00Z'), lastUsedAt: null };

describe('the Home tab’s key line', () => {
  it.each<[string, HomeKeyStatus | undefined, RegExp | undefined]>([
    ['nothing when keys are not in use and the person has none', { attribution: 'service', key: undefined }, undefined],
    ['nothing without key status (Slack built without keys)', undefined, undefined],
    ['a key kept while the service key is used', { attribution: 'service', key: KEY }, /connected ····Zq7w .*creates every run with its own key/],
    [
      'a connected key in use',
      { attribution: 'personal_if_connected', key: KEY },
      /connected ····Zq7w since <!date\^1795167000\^.*not used yet\. Runs you ask for are created with it/,
    ],
    ['a key last used', { attribution: 'personal_required', key: { ...KEY, lastUsedAt: KEY.connectedAt + 60_000 } }, /last used <!date\^1795167060\^/],
    [
      'a key the run API refused',
      { attribution: 'personal_if_connected', key: KEY, refused: { at: KEY.connectedAt + 120_000, status: 401 } },
      /····Zq7w was refused by the run API \(401\) <!date\^1795167120\^.*`\/agent connect`/,
    ],
    [
      'no key, the service key meanwhile',
      { attribution: 'personal_if_connected', key: undefined },
      /not connected\. Runs you ask for use the service’s key .*`\/agent connect`/,
    ],
    [
      'no key, and one is required',
      { attribution: 'personal_required', key: undefined },
      /not connected\. You need one to start runs here\. .*`\/agent connect`/,
    ],
  ])('%s', (_what, status, expected) => {
    const text = keyStatusText(status);
    if (expected === undefined) expect(text).toBeUndefined();
    else expect(text).toMatch(expected);
  });

  it('goes under the Start a run button, and not at all for someone refused', () => {
    const status: HomeKeyStatus = { attribution: 'personal_if_connected', key: KEY };
    const blocks = homeView([], undefined, status).blocks;
    expect(blocks.map((block) => block.block_id ?? block.type)).toEqual(['header', 'home_actions', 'home_key', 'section']);
    expect(JSON.stringify(homeView([], 'Sorry, no.', status).blocks)).not.toContain('home_key');
  });
});

describe('the Home tab’s usage line (issue 31)', () => {
  it('shows the person’s runs and credits of the last 30 days under the key line; none without figures or for a refused person', () => {
    const usage = { runs: 3, inferenceCost: 1.25, computeCost: 0.0005, credits: 1.2505 };
    const view = homeView([], undefined, undefined, usage);
    expect(view.blocks.find((block) => block.block_id === 'home_usage')).toEqual({
      type: 'context',
      block_id: 'home_usage',
      elements: [{ type: 'mrkdwn', text: '*Your usage, last 30 days:* 3 runs, 1.251 credits (inference 1.25, compute 0.001).' }],
    });
    expect(homeView([], undefined).blocks.some((block) => block.block_id === 'home_usage')).toBe(false);
    expect(homeView([], 'You may not use agent-bridge.', undefined, usage).blocks.some((block) => block.block_id === 'home_usage')).toBe(false);
  });
});
