import { describe, expect, it } from 'vitest';
import { personIdsFor } from './person-filter.js';

const names = { idsNamed: (text: string) => (text.toLowerCase().includes('ada') ? ['U0ADA0001'] : []) };

describe('personIdsFor', () => {
  it.each([
    ['a Slack user ID', 'U0GRACE01', ['U0GRACE01']],
    ['one in lower case', 'u0grace01', ['U0GRACE01']],
    ['one as @ or a mention', '<@U0GRACE01|grace>', ['U0GRACE01']],
    ['a known display name', 'Ada', ['U0ADA0001']],
    ['a text that is neither', 'deploy bot', []],
    ['a channel id', 'C0DEV', []],
  ])('resolves %s', (_what, typed, expected) => {
    expect(personIdsFor(typed, names)).toEqual(expected);
  });

  it('resolves only typed ids when Slack is off (no names)', () => {
    expect(personIdsFor('Ada', undefined)).toEqual([]);
    expect(personIdsFor('w0ada0001', undefined)).toEqual(['W0ADA0001']);
  });
});
