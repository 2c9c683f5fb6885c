/**
 * Starting a run without a mention (docs/slack.md "Starting without a mention"): a
 * channel route's `trigger` — a top-level message that opens with one of its keywords, or its emoji
 * added to a message. Both are requests under a mention's rules, keyed like a mention of that message
 * (`messageKey`), so one message starts one run however it is asked for and however many react.
 */
import type { TriggerInput } from '../core/ports/triggers.js';
import { slackRequester } from './access.js';
import { addressedTrigger, mentionsBot, messageKey, threadKey, type SlackMessage } from './normalise.js';

/** `slack.channels.<id>.trigger`: keywords matched at the start of a top-level message, and an emoji name (no colons). */
export interface ChannelTrigger {
  keywords: readonly string[];
  emoji?: string;
}

/** Which trigger applies in a channel, chosen as routing chooses the route: the channel's own entry, else `*`. */
export interface StartTriggers {
  /** Channel IDs (and `*`) that have a route of their own in `slack.channels`. */
  routed: ReadonlySet<string>;
  /** Channel ID (or `*`) → its route's trigger, for the routes that set one. */
  triggers: Readonly<Record<string, ChannelTrigger>>;
}

/** The trigger of the route that routes `channel`; a channel with a route of its own and no trigger has none. */
export function triggerOf(startTriggers: StartTriggers, channel: string): ChannelTrigger | undefined {
  return startTriggers.routed.has(channel) ? startTriggers.triggers[channel] : startTriggers.triggers['*'];
}

/** A keyword as it appears in Slack's text of a message (`&`, `<`, `>` arrive escaped). */
const slackEscaped = (keyword: string) => keyword.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * The message's text after the first keyword it opens with (case-insensitive, after leading
 * whitespace), or undefined when it opens with none. A keyword that ends in a letter or digit must end
 * a word there: `agent` matches `agent fix it`, not `agents are slow`.
 */
export function afterKeyword(text: string, keywords: readonly string[]): string | undefined {
  const start = text.trimStart();
  for (const keyword of keywords) {
    const wanted = slackEscaped(keyword.trim());
    if (wanted === '' || start.slice(0, wanted.length).toLowerCase() !== wanted.toLowerCase()) continue;
    const rest = start.slice(wanted.length);
    if (/[\p{L}\p{N}_]$/u.test(wanted) && /^[\p{L}\p{N}_]/u.test(rest)) continue;
    return rest;
  }
  return undefined;
}

/**
 * The run a top-level message starting with a keyword asks for: the message without its keyword, as
 * a mention of the bot would be (options, files, `stop`/`new` as the first word). Undefined for a DM
 * (already addressed to the bot), a reply in a thread, a message that mentions the bot (its
 * `app_mention` is the request) and one that opens with no keyword.
 */
export function keywordTrigger(message: SlackMessage, botUserId: string, trigger: ChannelTrigger | undefined): TriggerInput | undefined {
  if (!trigger || trigger.keywords.length === 0 || message.channel_type === 'im') return undefined;
  if (message.thread_ts !== undefined && message.thread_ts !== message.ts) return undefined;
  if (mentionsBot(message.text, botUserId)) return undefined;
  const rest = afterKeyword(message.text, trigger.keywords);
  return rest === undefined ? undefined : addressedTrigger({ ...message, text: rest }, botUserId);
}

/** The fields of a `reaction_added` event we act on. */
export interface SlackReaction {
  /** Who reacted: the run's requester. */
  user: string;
  /** Without a skin tone (`thumbsup::skin-tone-2` → `thumbsup`). */
  reaction: string;
  channel: string;
  ts: string;
  /** Who wrote the message, when Slack says. */
  itemUser?: string;
  /** The organisations Slack says the person who reacted belongs to (slack-person.ts `eventOrgs`). */
  orgs: readonly string[];
}

const isText = (value: unknown): value is string => typeof value === 'string' && value.length > 0;
const TS = /^\d{1,12}\.\d{1,8}$/;

/**
 * Reads a `reaction_added` event defensively: undefined unless it is a reaction to a message with
 * every field we need. `orgs` are those of the person who reacted, which the event itself never names.
 */
export function readReaction(event: unknown, orgs: readonly string[]): SlackReaction | undefined {
  if (typeof event !== 'object' || event === null) return undefined;
  const { user, reaction, item, item_user: itemUser } = event as Record<string, unknown>;
  if (!isText(user) || !isText(reaction) || typeof item !== 'object' || item === null) return undefined;
  const { type, channel, ts } = item as Record<string, unknown>;
  if (type !== 'message' || !isText(channel) || !isText(ts) || !TS.test(ts)) return undefined;
  return { user, reaction: reaction.split('::')[0] ?? reaction, channel, ts, ...(isText(itemUser) && { itemUser }), orgs };
}

/**
 * The run a reaction asks for: the channel's trigger emoji added by a person to a message that is not
 * ours. The event has no text, so the request names the message and the worker reads it
 * (`requestToRead`, `readReactedMessage`); the status message goes first, in that message's thread.
 * The person who reacted is the requester (the access policy applies to them). Keyed as a mention of the
 * message: a second reaction, a re-sent event or an earlier mention of it starts nothing.
 */
export function reactionTrigger(reaction: SlackReaction, botUserId: string, trigger: ChannelTrigger | undefined): TriggerInput | undefined {
  if (!trigger?.emoji || reaction.reaction !== trigger.emoji) return undefined;
  if (reaction.user === botUserId || reaction.itemUser === botUserId) return undefined;
  const anchor = threadKey(reaction.channel, reaction.ts);
  return {
    kind: 'start',
    key: messageKey(reaction.channel, reaction.ts),
    source: 'slack',
    anchor,
    payload: {
      prompt: `The Slack message ${reaction.channel} ${reaction.ts} (read when the request is worked)`,
      title: `A message sent with :${trigger.emoji}:`,
      origin: { source: 'slack', channel: reaction.channel },
      destinations: [anchor],
      requester: slackRequester({ id: reaction.user, orgs: reaction.orgs }),
      reference: { channel: reaction.channel, ts: reaction.ts },
      followupIfLinked: true,
      requestToRead: true,
    },
  };
}
