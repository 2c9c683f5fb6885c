/**
 * The Approve and Reject buttons of a request waiting for approval (`approval-blocks.ts`):
 * the click is acknowledged at once and handed to the core's approvals, which decide in one store
 * statement and owe what follows (a private word to someone who may not decide or came second).
 */
import type { ApprovalDesk } from '../core/approvals/approval-desk.js';
import type { Logger } from '../core/ports/logger.js';
import { APPROVE_ACTION_ID, REJECT_ACTION_ID } from './approval-blocks.js';
import { isConversationId, isMessageTs } from './slack-ids.js';
import type { ListenerApp } from './event-router.js';

export interface ApprovalListenerDeps {
  approvals: Pick<ApprovalDesk, 'decide'>;
  logger: Logger;
}

/** Registers `approve_run` and `reject_run`. */
export function registerApprovalListeners(app: ListenerApp, deps: ApprovalListenerDeps): void {
  for (const [actionId, decision] of [
    [APPROVE_ACTION_ID, 'approve'],
    [REJECT_ACTION_ID, 'reject'],
  ] as const) {
    app.action({ action_id: actionId, type: 'block_actions' }, async ({ ack, body, action }) => {
      await ack();
      const value = 'value' in action && typeof action.value === 'string' ? action.value : undefined;
      const where = clickedPlace(body);
      if (!value || !where) return;
      const user = body.user.id;
      const answer = await deps.approvals.decide(value, decision, { platform: 'slack', id: user, name: `<@${user}>` }, where);
      deps.logger.info({ approval: value, decision, user, answer: answer.kind }, 'approval button clicked');
    });
  }
}

/** The thread of the clicked message (its own thread, or the message itself at the top level): where a private word goes. */
function clickedPlace(body: { channel?: { id?: unknown }; message?: { ts?: unknown; thread_ts?: unknown } }): string | undefined {
  const channel = body.channel?.id;
  const ts = body.message?.thread_ts ?? body.message?.ts;
  if (typeof channel !== 'string' || !isConversationId(channel) || typeof ts !== 'string' || !isMessageTs(ts)) return undefined;
  return `slack:${channel}:${ts}`;
}
