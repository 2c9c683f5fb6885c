/**
 * People of other surfaces as Linear shows them: a Slack mention (`<@U…>`) is markup in Slack and
 * noise in a Linear comment, so names are made readable before the shared wording
 * (`surface-kit/markdown-comments.ts`) renders a message.
 */
import type { OutboxMessage } from '../core/ports/messages.js';
import { mapNoticeWords } from '../core/outbox/notice-parts.js';

/** A Slack mention (`<@U123>`, how Slack requesters are named) as words that mean something in Linear. */
function linearName(name: string): string {
  return name.replace(/^<@([UW][A-Z0-9]+)>$/, 'Slack user $1');
}

/** The message with the names of people from other platforms (who stopped a run, who asked) readable in Linear. */
export function withLinearNames(message: OutboxMessage): OutboxMessage {
  switch (message.kind) {
    case 'received':
      return message.requester === undefined ? message : { ...message, requester: linearName(message.requester) };
    case 'stopping':
      return message.requestedBy === undefined ? message : { ...message, requestedBy: linearName(message.requestedBy) };
    case 'announce':
      return message.cancelledBy === undefined ? message : { ...message, cancelledBy: linearName(message.cancelledBy) };
    case 'notice':
      // Notices the bridge words may name Slack people (an approval's approver): readable, not markup.
      return mapNoticeWords(message, (words) => words.replace(/<@([UW][A-Z0-9]+)>/g, 'Slack user $1'));
    default:
      return message;
  }
}
