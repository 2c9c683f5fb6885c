import { describe, expect, it } from 'vitest';
import { PersonIds, type PeopleSurface } from './person-ids.js';

const chat: PeopleSurface = {
  name: 'chat',
  title: 'Chat',
  personIds: {
    isUserId: (id) => /^[UW][A-Z0-9]{2,40}$/.test(id),
    bare: true,
    example: 'U0123ABCD',
    idName: 'Chat user ID',
    whereToFind: 'on the profile',
    normalise: (typed) => typed.toUpperCase(),
  },
};
const talk: PeopleSurface = {
  name: 'talk',
  title: 'Talk',
  personIds: {
    isUserId: (id) => /^[0-9a-f-]{36}$/.test(id),
    example: '6e1c1a2b-0000-4000-8000-000000000001',
    idName: 'Talk object ID',
    whereToFind: 'in the directory',
  },
};
const ids = new PersonIds([chat, talk]);
const TALK_ID = '6e1c1a2b-0000-4000-8000-000000000001';

describe('person ids', () => {
  it.each([
    ['U0123ABCD', { personId: 'U0123ABCD', surface: 'chat', userId: 'U0123ABCD' }],
    ['chat:U0123ABCD', { personId: 'U0123ABCD', surface: 'chat', userId: 'U0123ABCD' }],
    ['CHAT:U0123ABCD', { personId: 'U0123ABCD', surface: 'chat', userId: 'U0123ABCD' }],
    [`talk:${TALK_ID}`, { personId: `talk:${TALK_ID}`, surface: 'talk', userId: TALK_ID }],
    [TALK_ID, undefined],
    ['talk:U0123ABCD', undefined],
    ['chat:', undefined],
    [':U0123ABCD', undefined],
    ['other:U0123ABCD', undefined],
    ['u0123abcd', undefined],
    ['ada', undefined],
    ['', undefined],
  ])('%j reads as %j', (text, expected) => {
    expect(ids.parse(text)).toEqual(expected);
  });

  it('names a user of each surface: bare where its ids stand bare, qualified elsewhere, and nobody for an id of another shape', () => {
    expect(ids.of('chat', 'U0123ABCD')).toBe('U0123ABCD');
    expect(ids.of('talk', TALK_ID)).toBe(`talk:${TALK_ID}`);
    expect(ids.of('talk', 'U0123ABCD')).toBeUndefined();
    expect(ids.of('tracker', 'U0123ABCD')).toBeUndefined();
  });

  it('writes a qualified id as its surface writes it, however it was typed: one person, one id', () => {
    const guid: PeopleSurface = {
      name: 'guid',
      title: 'Guid',
      personIds: { ...talk.personIds, isUserId: (id) => /^[0-9a-f-]{36}$/i.test(id), normalise: (typed) => typed.toLowerCase() },
    };
    const people = new PersonIds([chat, guid]);
    expect(people.of('guid', TALK_ID.toUpperCase())).toBe(`guid:${TALK_ID}`);
    expect(people.parse(`GUID:${TALK_ID.toUpperCase()}`)).toEqual({ personId: `guid:${TALK_ID}`, surface: 'guid', userId: TALK_ID });
    // Bare ids stand as given: a Slack-like id typed in lower case is no id of its surface.
    expect(people.parse('u0123abcd')).toBeUndefined();
  });

  it('says who a person is in words, and what an id should look like', () => {
    expect(ids.describe('U0123ABCD')).toBe('Chat user U0123ABCD');
    expect(ids.describe(`talk:${TALK_ID}`)).toBe(`Talk user ${TALK_ID}`);
    expect(ids.describe('nobody')).toBe('nobody');
    expect(ids.expected()).toBe(
      `a Chat user ID such as U0123ABCD (on the profile), or a Talk object ID written talk:<id>, such as talk:${TALK_ID} (in the directory)`,
    );
    expect(new PersonIds([]).expected()).toBe('no chat surface whose users are people is registered');
    expect(ids.example()).toBe('U0123ABCD');
    expect(new PersonIds([talk]).example()).toBe(`talk:${TALK_ID}`);
    expect(new PersonIds([]).example()).toBe('');
  });

  it.each([
    ['U0123ABCD', 'U0123ABCD'],
    ['u0123abcd', 'U0123ABCD'],
    ['@U0123ABCD', 'U0123ABCD'],
    ['<@U0123ABCD>', 'U0123ABCD'],
    ['<@u0123abcd|ada>', 'U0123ABCD'],
    ['chat:u0123abcd', 'U0123ABCD'],
    [`<@talk:${TALK_ID}>`, `talk:${TALK_ID}`],
    [`TALK:${TALK_ID}`, `talk:${TALK_ID}`],
    ['ada', undefined],
    ['<@ada lovelace>', undefined],
    ['', undefined],
  ])('reads %j as typed in a search box as the person %j', (typed, personId) => {
    expect(ids.read(typed)?.personId).toBe(personId);
  });
});
