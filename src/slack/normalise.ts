import { intentOf } from '../core/intake/keywords.js';
import { titleFrom } from '../core/title.js';
import type { TriggerInput } from '../core/ports/triggers.js';
import { withAttachments, type AttachedFile } from '../core/attachments.js';
import { slackRequester } from './access.js';
import { plainSlackText } from './slack-text.js';

/** The fields of a Slack message event we act on (Bolt's types are unions too wide to use here). */
export interface SlackMessage {
  channel: string;
  user: string;
  text: string;
  ts: string;
  thread_ts?: string;
  channel_type?: string;
  /** Files attached to the message (`subtype: file_share`): listed with the request, never fetched. */
  files?: AttachedFile[];
  /** The organisations Slack says its author belongs to (slack-person.ts `eventOrgs`), for the access policy. */
  orgs: readonly string[];
}

export type Followups = 'all' | 'mentions';

/** The thread a message belongs to: the anchor of its run and the Cancel button's value. */
export function threadKey(channel: string, threadTs: string): string {
  return `slack:${channel}:${threadTs}`;
}

/** The dedupe key of a message: the same for its `app_mention` and `message` events and their retries. */
export function messageKey(channel: string, ts: string): string {
  return `slack:msg:${channel}:${ts}`;
}

const mentionOf = (botUserId: string) => new RegExp(`<@${botUserId}(?:\\|[^>]*)?>`, 'g');

export function mentionsBot(text: string, botUserId: string): boolean {
  return mentionOf(botUserId).test(text);
}

/** The text without the bot's mention(s), trimmed. */
export function stripMention(text: string, botUserId: string): string {
  return (
    text
      .replace(mentionOf(botUserId), ' ')
      // Only runs and tabs: a pattern matching every single space rebuilt long texts space by space.
      .replace(/[ \t]{2,}|\t/g, ' ')
      .trim()
  );
}

/**
 * A message addressed to the bot (an @mention, or anything in a DM) as a trigger: stop/cancel as the
 * first word stops the thread's run, `new` starts another run in the thread, anything else starts a
 * run — or, in a thread that already has one, is sent to it as a follow-up. Undefined when there is
 * nothing to do (an empty mention).
 */
export function addressedTrigger(message: SlackMessage, botUserId: string): TriggerInput | undefined {
  const threadTs = message.thread_ts ?? message.ts;
  const anchor = threadKey(message.channel, threadTs);
  const key = messageKey(message.channel, message.ts);
  const requester = slackRequester({ id: message.user, orgs: message.orgs });
  const reference = { channel: message.channel, ts: message.ts };
  // The bot's own mention goes while the text is still markup; then it becomes what was typed.
  const intent = intentOf(plainSlackText(stripMention(message.text, botUserId)));
  if (intent.kind === 'stop') return { kind: 'cancel', key, source: 'slack', anchor, payload: { requester } };
  if (!intent.text) return undefined;
  return {
    kind: 'start',
    key,
    source: 'slack',
    anchor,
    payload: {
      prompt: withAttachments(intent.text, message.files),
      title: titleFrom(intent.text),
      origin: { source: 'slack', channel: message.channel },
      destinations: [anchor],
      requester,
      reference,
      followupIfLinked: intent.kind === 'request',
    },
  };
}

/** A plain reply in a channel thread: a follow-up for the thread's run (if it has one). */
export function replyTrigger(message: SlackMessage): TriggerInput {
  return {
    kind: 'followup',
    key: messageKey(message.channel, message.ts),
    source: 'slack',
    anchor: threadKey(message.channel, message.thread_ts ?? message.ts),
    payload: {
      message: withAttachments(plainSlackText(message.text), message.files),
      requester: slackRequester({ id: message.user, orgs: message.orgs }),
      reference: { channel: message.channel, ts: message.ts },
    },
  };
}

/**
 * Which trigger, if any, a human `message` event makes. @mentions in channels arrive as their own
 * `app_mention` event and are skipped here, so one message never counts twice.
 */
export function messageTrigger(message: SlackMessage, botUserId: string, followups: Followups): TriggerInput | undefined {
  if (message.channel_type === 'im') return addressedTrigger(message, botUserId);
  if (mentionsBot(message.text, botUserId)) return undefined;
  const inThread = message.thread_ts !== undefined && message.thread_ts !== message.ts;
  if (!inThread || followups !== 'all' || (!message.text.trim() && !message.files)) return undefined;
  return replyTrigger(message);
}
