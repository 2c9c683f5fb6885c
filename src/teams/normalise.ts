/**
 * What a verified Teams message means (docs/teams.md): a start, a follow-up, a stop, or nothing. In a
 * channel or a group chat the bot hears only @mentions (and, with the RSC permission the manifest asks,
 * every reply, which `teams.followups: all` sends to the thread's run); in a 1:1 chat every message is
 * addressed to it. `stop` or `cancel` as the first word stops the place's run, `new` starts another,
 * anything else starts a run — or, where the place already has one, is sent to it.
 */
import { intentOf } from '../core/intake/keywords.js';
import type { Followups } from '../config-kit/conversation-keys.js';
import type { Requester, TriggerInput } from '../core/ports/triggers.js';
import { titleFrom } from '../core/title.js';
import { messageText } from './message-text.js';
import type { MessageActivity } from './parse-activity.js';

/** Where an activity came from and who sent it, as the rest of the edge needs it. */
export interface ActivityWhere {
  /** The place: `teams:<conversation id>` (a channel thread's, a chat's). */
  place: string;
  /** The channel for routing (`teams.channels`); undefined in a chat. */
  channel: string | undefined;
  kind: 'channel' | 'groupChat' | 'personal';
}

/** What the edge keeps of a request to find it again: the message, and where to answer. */
export interface TeamsReference {
  activityId: string;
  conversationId: string;
  serviceUrl: string;
  /** The sender's Teams user id (`29:…`), for a private answer in their 1:1 chat. */
  userId: string;
}

/** The dedupe key of an activity (the same on the connector's retries). */
export const activityKey = (conversationBaseId: string, activityId: string) => `teams:activity:${conversationBaseId}:${activityId}`;

export function whereOf(activity: Pick<MessageActivity, 'conversation' | 'channelData'>): ActivityWhere {
  const { conversation } = activity;
  const type = conversation.conversationType;
  const kind =
    type === 'personal'
      ? 'personal'
      : type === 'groupChat'
        ? 'groupChat'
        : type === 'channel'
          ? 'channel'
          : conversation.id.startsWith('a:')
            ? 'personal'
            : 'groupChat';
  const channel = kind === 'channel' ? (activity.channelData?.channel?.id ?? conversation.id.split(';')[0]) : undefined;
  return { place: `teams:${conversation.id}`, channel, kind };
}

export function requesterOf(activity: Pick<MessageActivity, 'from'>, tenantId: string): Requester | undefined {
  const aad = activity.from.aadObjectId?.toLowerCase();
  if (!aad) return undefined;
  return { platform: 'teams', id: aad, ...(activity.from.name && { name: activity.from.name.slice(0, 200) }), orgs: [tenantId] };
}

/** A message as a trigger, or why it is none. `linked`: whether the place has a run that is still active. */
export function messageTrigger(
  activity: MessageActivity,
  settings: { botId: string; botName: string | undefined; tenantId: string; followups: Followups; key: string },
  hasActiveRun: boolean,
): { trigger: TriggerInput } | { ignored: string } {
  const where = whereOf(activity);
  const requester = requesterOf(activity, settings.tenantId);
  if (!requester) return { ignored: 'a message without an Entra object id (a guest of another kind, or an app)' };
  const addressed = where.kind === 'personal' || activity.mentionedIds.includes(settings.botId);
  const names = [settings.botName, activity.recipient?.name].filter((name): name is string => Boolean(name));
  const text = messageText(activity.text ?? '', names);
  const reference = { activityId: activity.id, conversationId: activity.conversation.id, serviceUrl: activity.serviceUrl, userId: activity.from.id };
  const base = { key: settings.key, source: 'teams', anchor: where.place } as const;
  if (!addressed) {
    // Heard only with the RSC permission: a reply in a run's thread, which `followups: all` sends to the run.
    if (settings.followups !== 'all' || !hasActiveRun || text === '') return { ignored: 'a message not addressed to the bot' };
    return { trigger: { ...base, kind: 'followup', payload: { message: text, requester, reference } } };
  }
  const intent = intentOf(text);
  if (intent.kind === 'stop') return { trigger: { ...base, kind: 'cancel', payload: { requester, reference } } };
  if (intent.text === '') return { ignored: 'an empty request' };
  // In a chat (no threads) a message goes to the run while it lives; in a channel thread, to its run as on Slack.
  if (intent.kind === 'request' && hasActiveRun) {
    return { trigger: { ...base, kind: 'followup', payload: { message: intent.text, requester, reference } } };
  }
  return {
    trigger: {
      ...base,
      kind: 'start',
      payload: {
        prompt: intent.text,
        title: titleFrom(intent.text),
        origin: { source: 'teams', ...(where.channel !== undefined && { channel: where.channel }) },
        destinations: [where.place],
        requester,
        reference,
        followupIfLinked: intent.kind === 'request' && where.kind === 'channel',
      },
    },
  };
}
