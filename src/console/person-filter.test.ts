import { describe, expect, it } from 'vitest';
import { PersonIds } from '../surface-kit/person-ids.js';
import { personIdsFor } from './person-filter.js';

const names = { idsNamed: (text: string) => (text.toLowerCase().includes('ada') ? ['U0ADA0001'] : []) };

describe('personIdsFor', () => {
  it.each([
    ['a Slack user ID', 'U0GRACE01', ['U0GRACE01']],
    ['one in lower case', 'u0grace01', ['U0GRACE01']],
    ['one as @ or a mention', '<@U0GRACE01|grace>', ['U0GRACE01']],
    ['one written as a person id of its surface', 'slack:U0GRACE01', ['U0GRACE01']],
    ['one written so in any case', 'SLACK:u0grace01', ['U0GRACE01']],
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

  it('resolves a person of another chat surface to the user id its runs store, typed or named', () => {
    const people = new PersonIds([
      { name: 'talk', title: 'Talk', personIds: { isUserId: (id) => /^t-\d+$/.test(id), example: 't-1', idName: 'Talk user ID', whereToFind: '' } },
    ]);
    const talkNames = { idsNamed: (text: string) => (text === 'Bob' ? ['talk:t-2'] : []) };
    expect(personIdsFor('<@talk:t-7>', talkNames, people)).toEqual(['t-7']);
    expect(personIdsFor('Bob', talkNames, people)).toEqual(['t-2']);
    expect(personIdsFor('t-7', talkNames, people)).toEqual([]);
  });
});
