import { describe, expect, it } from 'vitest';
import { TEAMS_IDS, TEAMS_PEOPLE } from '../../test/fixtures/teams/index.js';
import { teamsModule } from './module.js';
import { conversationBase, parseTeamsPlace, threadPlace } from './places.js';

const ADA = TEAMS_PEOPLE.ada.aadObjectId;
const THREAD = `${TEAMS_IDS.channel};messageid=1750000000000`;
const SKYPE_CHANNEL = '19:0a1b2c3d4e5f60718293a4b5c6d7e8f9@thread.skype';

describe('parseTeamsPlace', () => {
  it.each([
    ['a channel', `teams:${TEAMS_IDS.channel}`, { kind: 'channel', conversationId: TEAMS_IDS.channel, channelId: TEAMS_IDS.channel }],
    ['a channel thread', `teams:${THREAD}`, { kind: 'thread', conversationId: THREAD, channelId: TEAMS_IDS.channel, rootId: '1750000000000' }],
    [
      'an older channel’s thread',
      `teams:${SKYPE_CHANNEL};messageid=1`,
      { kind: 'thread', conversationId: `${SKYPE_CHANNEL};messageid=1`, channelId: SKYPE_CHANNEL, rootId: '1' },
    ],
    ['an older channel', `teams:${SKYPE_CHANNEL}`, { kind: 'channel', conversationId: SKYPE_CHANNEL, channelId: SKYPE_CHANNEL }],
    ['a group chat', `teams:${TEAMS_IDS.groupChat}`, { kind: 'chat', conversationId: TEAMS_IDS.groupChat }],
    ['a 1:1 chat', `teams:${TEAMS_IDS.personalChat}`, { kind: 'chat', conversationId: TEAMS_IDS.personalChat }],
    ['a person', `teams:${ADA}`, { kind: 'person', aadObjectId: ADA }],
    ['a person in capitals, read in lower case', `teams:${ADA.toUpperCase()}`, { kind: 'person', aadObjectId: ADA }],
  ])('%s', (_what, place, parsed) => {
    expect(parseTeamsPlace(place)).toEqual(parsed);
  });

  it.each([
    ['another surface’s place', `slack:C0123ABCD:1700000000.000100`],
    ['no id', 'teams:'],
    ['an id too short', 'teams:ab'],
    ['an id with a space', `teams:${TEAMS_IDS.channel} x`],
    ['an id with a slash', 'teams:19:abc/../x@thread.tacv2'],
    ['an id with a line break', `teams:${TEAMS_IDS.groupChat}\n`],
    ['an id over 400 characters', `teams:19:${'a'.repeat(400)}@thread.v2`],
  ])('refuses %s', (_what, place) => {
    expect(parseTeamsPlace(place)).toBeUndefined();
  });

  it.each([
    ['a root that is no number', 'abc'],
    ['a root of more than 20 digits', '1'.repeat(21)],
  ])('a thread id with %s is no thread (a chat id at most)', (_what, root) => {
    expect(parseTeamsPlace(`teams:${TEAMS_IDS.channel};messageid=${root}`)).toMatchObject({ kind: 'chat' });
  });
});

describe('threadPlace and conversationBase', () => {
  it('a thread’s place is its channel’s with the root id; its base is the channel', () => {
    expect(threadPlace(TEAMS_IDS.channel, '1750000000000')).toBe(`teams:${THREAD}`);
    expect(parseTeamsPlace(threadPlace(TEAMS_IDS.channel, '1750000000000'))).toMatchObject({ kind: 'thread', channelId: TEAMS_IDS.channel });
    expect(conversationBase(THREAD)).toBe(TEAMS_IDS.channel);
    expect(conversationBase(TEAMS_IDS.groupChat)).toBe(TEAMS_IDS.groupChat);
    expect(conversationBase(`${TEAMS_IDS.channel};messageid=abc`)).toBe(`${TEAMS_IDS.channel};messageid=abc`);
  });
});

describe('the Teams module’s placeLabel and placeLink', () => {
  it.each([
    [`teams:${THREAD}`, `Teams thread 1750000000000 in ${TEAMS_IDS.channel}`],
    [`teams:${TEAMS_IDS.channel}`, `Teams channel ${TEAMS_IDS.channel} (a thread of its own)`],
    [`teams:${TEAMS_IDS.groupChat}`, `Teams chat ${TEAMS_IDS.groupChat}`],
    [`teams:${TEAMS_IDS.personalChat}`, `Teams chat ${TEAMS_IDS.personalChat}`],
    [`teams:${ADA.toUpperCase()}`, `Teams 1:1 chat with ${ADA}`],
  ])('%s', (place, label) => {
    expect(teamsModule.placeLabel(place)).toBe(label);
    expect(teamsModule.placeLink(place)).toEqual({ text: label, url: undefined });
    expect(teamsModule.placeLink(place, 'https://teams.microsoft.com/l/message/x')).toEqual({ text: label, url: 'https://teams.microsoft.com/l/message/x' });
  });

  it.each(['slack:C0123ABCD', 'teams:', `teams:${TEAMS_IDS.channel} x`, 'log:schedule:nightly'])('%s is not a Teams place: no label, no link', (place) => {
    expect(teamsModule.placeLabel(place)).toBeUndefined();
    expect(teamsModule.placeLink(place, 'https://teams.microsoft.com/l/message/x')).toBeUndefined();
  });
});
