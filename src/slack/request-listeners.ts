/**
 * The Slack listeners that turn what people write into triggers: a mention, a message (in a thread
 * with a run, a DM, a channel keyword), the channel's trigger emoji, the status message's Cancel
 * button, the "Send to agent" shortcut — and the link previews owed for pasted session links.
 */
import type { AccessPolicy } from '../core/ports/intake.js';
import { slackRequester, slackUserRefusal } from './access.js';
import { CANCEL_ACTION_ID } from './blocks.js';
import { slackFiles } from './files.js';
import type { SubmitTrigger } from './listener-submit.js';
import type { ListenerDeps } from './listener-deps.js';
import { addressedTrigger, messageTrigger, type SlackMessage } from './normalise.js';
import { readMessageShortcut, SEND_TO_AGENT_CALLBACK_ID, sendToAgentTrigger } from './shortcut.js';
import { eventOrgs, interactionOrgs } from './slack-person.js';
import { keywordTrigger, reactionTrigger, readReaction, triggerOf } from './start-triggers.js';
import { unfurlRow } from './unfurl.js';
import type { ListenerApp } from './event-router.js';

type RequestDeps = Pick<ListenerDeps, 'botUserId' | 'followups' | 'startTriggers' | 'intake' | 'unfurlDomains'>;

/**
 * A human's plain message (no subtype: edits, joins, deletions and bot posts never trigger), or one
 * with files (`file_share`), whose files are listed with the request. `envelope` says which
 * organisations its author may belong to (slack-person.ts).
 */
function humanMessage(event: Record<string, unknown>, envelope: unknown, botUserId: string): SlackMessage | undefined {
  if ((event['subtype'] !== undefined && event['subtype'] !== 'file_share') || event['bot_id'] !== undefined) return undefined;
  const { channel, user, text, ts } = event;
  if (typeof channel !== 'string' || typeof user !== 'string' || typeof ts !== 'string' || typeof text !== 'string') return undefined;
  if (user === botUserId) return undefined;
  const threadTs = typeof event['thread_ts'] === 'string' ? event['thread_ts'] : undefined;
  const channelType = typeof event['channel_type'] === 'string' ? event['channel_type'] : undefined;
  const files = slackFiles(event['files']);
  return {
    channel,
    user,
    text,
    ts,
    ...(threadTs && { thread_ts: threadTs }),
    ...(channelType && { channel_type: channelType }),
    ...(files && { files }),
    orgs: eventOrgs(event, envelope),
  };
}

/** Registers the listeners of requests written in Slack. */
export function registerRequestListeners(app: ListenerApp, deps: RequestDeps, access: AccessPolicy, submit: SubmitTrigger): void {
  app.event('app_mention', async ({ event, body, context }) => {
    const message = humanMessage(event as unknown as Record<string, unknown>, body, deps.botUserId);
    if (message) await submit(addressedTrigger(message, deps.botUserId), context);
  });

  app.event('message', async ({ event, body, context }) => {
    const message = humanMessage(event as unknown as Record<string, unknown>, body, deps.botUserId);
    if (!message) return;
    // A top-level message opening with the channel's keyword (start-triggers.ts) is a request too.
    const trigger =
      messageTrigger(message, deps.botUserId, deps.followups) ?? keywordTrigger(message, deps.botUserId, triggerOf(deps.startTriggers, message.channel));
    await submit(trigger, context);
  });

  // The channel's trigger emoji added to a message: a request whose words the worker reads.
  app.event('reaction_added', async ({ event, body, context }) => {
    const reaction = readReaction(event, eventOrgs(event, body));
    if (reaction) await submit(reactionTrigger(reaction, deps.botUserId, triggerOf(deps.startTriggers, reaction.channel)), context);
  });

  // The status message's Cancel button: its value is the thread key, the run's anchor.
  app.action({ action_id: CANCEL_ACTION_ID, type: 'block_actions' }, async ({ ack, body, action, context }) => {
    const value = 'value' in action && typeof action.value === 'string' ? action.value : undefined;
    if (value?.startsWith('slack:')) {
      await submit(
        {
          kind: 'cancel',
          key: `slack:action:${body.user.id}:${'action_ts' in action ? action.action_ts : ''}`,
          source: 'slack',
          anchor: value,
          payload: { requester: slackRequester({ id: body.user.id, orgs: interactionOrgs(body) }) },
        },
        context,
      );
    }
    await ack();
  });

  // "Send to agent" on a message: stored like a mention of it, then acknowledged; nothing else here.
  app.shortcut(SEND_TO_AGENT_CALLBACK_ID, async ({ ack, body, context }) => {
    const shortcut = readMessageShortcut(body);
    if (shortcut) await submit(sendToAgentTrigger(shortcut), context);
    await ack();
  });

  // A pasted session link: the preview is owed (stored) here and sent by the outbox. Someone the
  // access policy refuses sees no run here either, so their links are not previewed.
  app.event('link_shared', async ({ event, body }) => {
    const fields = event as unknown as Record<string, unknown>;
    const user = typeof fields['user'] === 'string' ? fields['user'] : '';
    if (slackUserRefusal(access, { id: user, orgs: eventOrgs(fields, body) })) return;
    const row = unfurlRow(fields, deps.unfurlDomains);
    if (row) await deps.intake.owe([row]);
  });
}
