/**
 * People as a tracker's comments name them. The core names a person by the mention token
 * `<@personId>` (a chat's markup, which that chat renders as a mention); in an issue comment it would
 * be noise, so a tracker writes it in words before its wording renders a message ("Slack user
 * U0123ABCD", as `PersonIds.describe` says it).
 */
import { mapNoticeWords } from '../core/outbox/notice-parts.js';
import type { OutboxMessage } from '../core/ports/messages.js';
import type { PersonIds } from './person-ids.js';

/** How people are described where a chat's markup means nothing. */
export type DescribePeople = Pick<PersonIds, 'describe'>;

/** A mention token: `<@` a person id `>` (a person id holds no space and no angle bracket). */
const MENTION = /<@([^<>\s]{1,200})>/g;

/** `text` with every mention of a known person in words; a token naming no known person stays as written. */
export function peopleInWords(text: string, people: DescribePeople): string {
  return text.replace(MENTION, (token, personId: string) => {
    const words = people.describe(personId);
    return words === personId ? token : words;
  });
}

/** The message with the people it names (who asked, who stopped a run, who approved in a notice) in words. */
export function withPeopleInWords(message: OutboxMessage, people: DescribePeople): OutboxMessage {
  const inWords = (text: string) => peopleInWords(text, people);
  switch (message.kind) {
    case 'received':
      return message.requester === undefined ? message : { ...message, requester: inWords(message.requester) };
    case 'stopping':
      return message.requestedBy === undefined ? message : { ...message, requestedBy: inWords(message.requestedBy) };
    case 'announce':
      return message.cancelledBy === undefined ? message : { ...message, cancelledBy: inWords(message.cancelledBy) };
    case 'notice':
      return mapNoticeWords(message, inWords);
    default:
      return message;
  }
}
