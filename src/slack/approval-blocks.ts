/**
 * A request waiting for approval in Slack (docs/approvals-and-audit.md): the question with
 * **Approve** / **Reject** buttons (`approve_run`, `reject_run`, value = the held request's id), in
 * the thread the route asks in and in each approver's direct messages (with a link to that thread).
 */
import type { KnownBlock } from '@slack/types';
import type { OutboxMessage } from '../core/ports/messages.js';
import { escapeKeepingMentions, escapeMrkdwn, link, plain, section } from './blocks.js';

/** `action_id` of the Approve button; its `value` is the held request's id. */
export const APPROVE_ACTION_ID = 'approve_run';
/** `action_id` of the Reject button; its `value` is the held request's id. */
export const REJECT_ACTION_ID = 'reject_run';

/** Slack's longest button value. */
const VALUE_LIMIT = 2000;

/** The question and its buttons; `threadLink` (a direct message's) points to where it was asked. */
export function approvalBlocks(message: Extract<OutboxMessage, { kind: 'approval' }>, threadLink?: string): KnownBlock[] {
  const who = message.requester ? ` asked by ${escapeKeepingMentions(message.requester)}` : '';
  const approvers = message.approvers.map((id) => `<@${id}>`).join(', ');
  const expires = Math.floor(message.expiresAt / 1000);
  const blocks: KnownBlock[] = [
    section(
      'approval_question',
      `:hourglass_flowing_sand: *Waiting for approval*: ${escapeMrkdwn(message.title)}${who} (route \`${escapeMrkdwn(message.route)}\`).`,
    ),
    section(
      'approval_who',
      `${approvers} may approve or reject it; unanswered, it expires <!date^${expires}^{date_short_pretty} {time}|${new Date(message.expiresAt).toISOString()}>.${
        threadLink ? ` ${link(threadLink, 'Open the thread')}` : ''
      }`,
    ),
    {
      type: 'actions',
      block_id: 'approval_actions',
      elements: [
        { type: 'button', action_id: APPROVE_ACTION_ID, text: plain('Approve'), value: message.approvalId.slice(0, VALUE_LIMIT), style: 'primary' },
        { type: 'button', action_id: REJECT_ACTION_ID, text: plain('Reject'), value: message.approvalId.slice(0, VALUE_LIMIT), style: 'danger' },
      ],
    },
  ];
  return blocks;
}
