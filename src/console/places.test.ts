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
