import { quote } from '../core/quote.js';
import { titleFrom } from '../core/title.js';
import type { TriggerInput } from '../core/ports/triggers.js';
import { slackRequester } from './access.js';
import { threadKey } from './normalise.js';
import { isConversationId, isMessageTs } from './slack-ids.js';
import { interactionOrgs } from './slack-person.js';
import { plainSlackText } from './slack-text.js';

/** The message shortcut's `callback_id` (docs/slack.md: a contract, it does not change). */
export const SEND_TO_AGENT_CALLBACK_ID = 'send_to_agent';

/** The fields of a `message_action` payload we act on; anything else in it is ignored. */
export interface MessageShortcut {
  /** Who clicked "Send to agent". */
  user: string;
  /** The organisations Slack says they belong to (slack-person.ts `interactionOrgs`). */
  orgs: readonly string[];
  channel: string;
  message: { ts: string; text: string; user?: string; thread_ts?: string };
}

const isText = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

/**
 * Reads a `message_action` payload defensively (it is signed, but its shape is Slack's to change):
 * undefined when a field we need is missing or of the wrong type, or when the channel, the message's
 * ts or its thread's is not shaped as Slack's — the run's place is made of them (`slack:<channel>:<ts>`),
 * and a run there could never report, as for an event of that shape (inspect-request.ts).
 */
export function readMessageShortcut(body: unknown): MessageShortcut | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { user, channel, message } = body as Record<string, unknown>;
  const userId = typeof user === 'object' && user !== null ? (user as Record<string, unknown>)['id'] : undefined;
  const channelId = typeof channel === 'object' && channel !== null ? (channel as Record<string, unknown>)['id'] : undefined;
  if (!isText(userId) || !isText(channelId) || !isConversationId(channelId) || typeof message !== 'object' || message === null) return undefined;
  const { ts, text, user: author, thread_ts: threadTs } = message as Record<string, unknown>;
  if (!isText(ts) || !isMessageTs(ts) || typeof text !== 'string') return undefined;
  if (threadTs !== undefined && !(isText(threadTs) && isMessageTs(threadTs))) return undefined;
  return {
    user: userId,
    orgs: interactionOrgs(body),
    channel: channelId,
    message: { ts, text, ...(isText(author) && { user: author }), ...(isText(threadTs) && { thread_ts: threadTs }) },
  };
}

/**
 * A message someone else wrote as a request (Send to agent, a reaction): quoted, with its author, and
 * titled by its first line. Undefined when the message has no text (e.g. only files).
 */
export function messageRequest(slackText: string, author: string | undefined): { prompt: string; title: string } | undefined {
  const text = plainSlackText(slackText).trim();
  if (!text) return undefined;
  return { prompt: `Do what this Slack message (by ${author ? `<@${author}>` : 'someone'}) asks:\n${quote(text)}`, title: titleFrom(text) };
}

/** The dedupe key of "Send to agent" on a message: one request per message, however often it is sent. */
export function sendToAgentKey(channel: string, ts: string): string {
  return `slack:send:${channel}:${ts}`;
}

/**
 * "Send to agent" on a message as a trigger: a request whose text is that message, quoted, reported
 * in that message's thread — as a mention there would be (in a thread that already has a run it goes
 * to that run as a follow-up). Keywords do not apply: the message was written for people, not the
 * bot. Undefined when the message has no text (e.g. only files).
 */
export function sendToAgentTrigger(shortcut: MessageShortcut): TriggerInput | undefined {
  const request = messageRequest(shortcut.message.text, shortcut.message.user);
  if (!request) return undefined;
  const anchor = threadKey(shortcut.channel, shortcut.message.thread_ts ?? shortcut.message.ts);
  const requester = slackRequester({ id: shortcut.user, orgs: shortcut.orgs });
  return {
    kind: 'start',
    key: sendToAgentKey(shortcut.channel, shortcut.message.ts),
    source: 'slack',
    anchor,
    payload: {
      ...request,
      origin: { source: 'slack', channel: shortcut.channel },
      destinations: [anchor],
      requester,
      // The message itself: its 👀 reaction, and the thread context before it (as for a mention).
      reference: { channel: shortcut.channel, ts: shortcut.message.ts },
      followupIfLinked: true,
    },
  };
}
