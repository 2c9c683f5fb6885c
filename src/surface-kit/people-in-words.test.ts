import { describe, expect, it } from 'vitest';
import { noticeOf } from '../core/outbox/notice-parts.js';
import type { OutboxMessage } from '../core/ports/messages.js';
import { peopleInWords, withPeopleInWords } from './people-in-words.js';
import { PersonIds } from './person-ids.js';

/* Two made-up chat surfaces: one whose ids stand bare, one whose person ids are `<surface>:<id>`. */
const PEOPLE = new PersonIds([
  { name: 'chat', title: 'Chat', personIds: { isUserId: (id) => /^P[0-9]+$/.test(id), bare: true, example: 'P1', idName: 'Chat id', whereToFind: 'profile' } },
  {
    name: 'teams',
    title: 'Microsoft Teams',
    personIds: { isUserId: (id) => /^[0-9a-f-]{8,}$/.test(id), example: '6e1c0000', idName: 'Teams id', whereToFind: 'profile' },
  },
]);

describe('peopleInWords: a mention token of any chat surface’s person in words', () => {
  it.each([
    ['a bare id', 'asked by <@P1>', 'asked by Chat user P1'],
    ['a surface-qualified id', 'asked by <@teams:6e1c0000-aa>', 'asked by Microsoft Teams user 6e1c0000-aa'],
    ['the bare surface’s id written qualified', '<@chat:P7>', 'Chat user P7'],
    ['several in a sentence', '<@P1>: rejected by <@teams:6e1c0000-bb>.', 'Chat user P1: rejected by Microsoft Teams user 6e1c0000-bb.'],
    ['a token naming no known person stays as written', '<@U0123ABCD> and <@teams:nope>', '<@U0123ABCD> and <@teams:nope>'],
    ['text with no token', 'Grace (octocat)', 'Grace (octocat)'],
  ])('%s', (_what, text, words) => {
    expect(peopleInWords(text, PEOPLE)).toBe(words);
  });
});

describe('withPeopleInWords: the people a message names', () => {
  it.each<[string, OutboxMessage, OutboxMessage]>([
    ['who asked', { kind: 'received', title: 't', requester: '<@P1>' }, { kind: 'received', title: 't', requester: 'Chat user P1' }],
    [
      'who stopped a run',
      { kind: 'stopping', run: { runId: 'r', title: 't', state: 'INPROGRESS', pullRequests: [] }, receivedKey: 'k', requestedBy: '<@teams:6e1c0000>' },
      {
        kind: 'stopping',
        run: { runId: 'r', title: 't', state: 'INPROGRESS', pullRequests: [] },
        receivedKey: 'k',
        requestedBy: 'Microsoft Teams user 6e1c0000',
      },
    ],
    ['a notice’s words', { kind: 'notice', text: '<@P1>: rejected by <@P2>.' }, { kind: 'notice', text: 'Chat user P1: rejected by Chat user P2.' }],
  ])('%s', (_what, message, expected) => {
    expect(withPeopleInWords(message, PEOPLE)).toEqual(expected);
  });

  it('in a notice with links, the words only: a link’s URL and label are left alone', () => {
    const notice = noticeOf(['<@P1> sent the run ', { url: 'https://example.test/review?<@P1>', label: 'a review' }, '.']);
    expect(withPeopleInWords(notice, PEOPLE)).toMatchObject({
      parts: ['Chat user P1 sent the run ', { url: 'https://example.test/review?<@P1>', label: 'a review' }, '.'],
    });
  });
});
