import { describe, expect, it } from 'vitest';
import { limitTitle, titleFrom } from './title.js';

describe('titleFrom', () => {
  it.each([
    ['Fix the build', 'Fix the build'],
    ['\n\n   Fix the build  \nwith details', 'Fix the build'],
    ['', 'Agent run'],
    ['   \n \n', 'Agent run'],
    ['x'.repeat(80), 'x'.repeat(80)],
    ['x'.repeat(81), `${'x'.repeat(79)}…`],
    ['é'.repeat(90), `${'é'.repeat(79)}…`],
  ])('%j → %j', (text, title) => {
    expect(titleFrom(text)).toBe(title);
  });

  it('counts characters, not UTF-16 units', () => {
    expect([...limitTitle('🚀'.repeat(100))]).toHaveLength(80);
  });
});
