import { describe, expect, it } from 'vitest';
import { place } from './places.js';

describe('place (console)', () => {
  it.each<[string, string | undefined, string]>([
    ['github:acme/web#12', 'https://github.com/acme/web/pull/12', '<a href="https://github.com/acme/web/pull/12"'],
    ['github:acme/web#12', undefined, 'GitHub acme/web#12'],
    ['linear:ENG-42', 'https://linear.app/acme/issue/ENG-42', 'Linear issue ENG-42'],
  ])('%s shows as itself', (anchor, url, expected) => {
    const shown = String(place(anchor, 'github', url));
    expect(shown).toContain(expected);
    expect(shown).toContain(anchor.startsWith('github:') ? 'GitHub acme/web#12' : 'Linear issue');
  });
});

describe('place: where a run was asked for, as the console shows it', () => {
  it.each([
    [
      'a Jira issue with its URL',
      'jira:ENG-42',
      'jira',
      'https://acme.atlassian.net/browse/ENG-42',
      '<a href="https://acme.atlassian.net/browse/ENG-42"',
      'Jira issue ENG-42',
    ],
    ['a Jira issue without one', 'jira:ENG-42', 'jira', undefined, 'Jira issue ENG-42', 'Jira issue ENG-42'],
    ['a Linear issue', 'linear:ENG-7', 'linear', 'https://linear.app/acme/issue/ENG-7', '<a href="https://linear.app/acme/issue/ENG-7"', 'Linear issue ENG-7'],
  ])('%s', (_what, anchor, source, url, starts, words) => {
    const shown = place(anchor, source, url).toString();
    expect(shown.startsWith(starts)).toBe(true);
    expect(shown).toContain(words);
  });

  it.each([
    ['log:console:0123456789abcdef01234567', 'console', 'the console (New run)'],
    ['log:cli:0123456789abcdef01234567', 'cli', 'the command line'],
  ])('%s: %s', (anchor, source, words) => {
    expect(place(anchor, source).toString()).toBe(words);
  });

  it('escapes a hostile key-like anchor instead of rendering it', () => {
    expect(place('jira:<img src=x>', 'jira').toString()).not.toContain('<img');
  });
});
