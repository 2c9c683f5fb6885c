/**
 * Slack's agent messaging experience (`features.agent_view`, docs.slack.dev/ai): the app's own
 * Messages tab, where each message is a thread. What its events mean here:
 * - `app_home_opened` with `tab: "messages"`: the person opened the DM — its suggested prompts are owed
 *   (as `assistant_thread_started` did for the assistant panel);
 * - `app_context_changed`: what the person is viewing (`context.entities`, most relevant first): the
 *   channel is remembered per person, and a request in the DM routes as that channel's route when it
 *   has one of its own (as the panel's context did);
 * - `agent_session_stopped`: someone pressed the stop button of a run's session — a stop like Cancel.
 * Every payload is read defensively: a wrong shape is acknowledged and changes nothing.
 */
import type { TriggerInput } from '../core/ports/triggers.js';
import type { NewOutboxRow, SettingRepository } from '../core/ports/store.js';
import { ASSISTANT_PROMPTS_KIND, assistantDestination } from './assistant.js';

const SLACK_USER = /^[UW][A-Z0-9]{2,40}$/;
const ROUTED_CHANNEL = /^[CG][A-Z0-9]{2,40}$/;
const ANY_CHANNEL = /^[CDG][A-Z0-9]{2,40}$/;
const DM = /^D[A-Z0-9]{2,40}$/;
const TS = /^\d{1,12}\.\d{1,12}$/;
/** More entities than Slack sends for one view: such a list is not Slack's. */
const MAX_ENTITIES = 50;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The channel a person views beside the agent (`app_context_changed`), '' when none or a DM, kept per
 * person. Stored in the settings under a name of Slack's edge (not the core's setting-keys).
 */
export function viewedChannelKey(user: string): string {
  return `slack_viewed_channel:${user}`;
}

/** A press of a session's stop button, as `agent_session_stopped` says it. */
export interface SessionStop {
  channel: string;
  threadTs: string;
  user: string;
}

/** `agent_session_stopped`'s thread and who pressed stop; undefined when it is not Slack's shape. */
export function readSessionStop(event: unknown): SessionStop | undefined {
  if (!isObject(event)) return undefined;
  const { channel, thread_ts: threadTs, user } = event;
  if (typeof channel !== 'string' || typeof threadTs !== 'string' || typeof user !== 'string') return undefined;
  if (!ANY_CHANNEL.test(channel) || !TS.test(threadTs) || !SLACK_USER.test(user)) return undefined;
  return { channel, threadTs, user };
}

/**
 * The channel named by a `context` (`{entities: [{type, value}, …]}`, `{}` when nothing is in view):
 * the most relevant entity that names a channel — itself or a message in it — '' when none does or it
 * is a DM; undefined when the context is not Slack's shape.
 */
export function readViewedChannel(context: unknown): string | undefined {
  if (!isObject(context)) return undefined;
  const entities = context['entities'];
  if (entities === undefined) return '';
  if (!Array.isArray(entities) || entities.length > MAX_ENTITIES || !entities.every((entity) => isObject(entity) && typeof entity['type'] === 'string')) {
    return undefined;
  }
  for (const entity of entities as Array<Record<string, unknown>>) {
    const value = entity['value'];
    const channel =
      entity['type'] === 'slack#/types/channel_id'
        ? value
        : entity['type'] === 'slack#/types/message_context' && isObject(value)
          ? value['channel_id']
          : undefined;
    if (typeof channel === 'string' && ANY_CHANNEL.test(channel)) return ROUTED_CHANNEL.test(channel) ? channel : '';
  }
  return '';
}

/**
 * Who changed view and what they view now (`app_context_changed`): the person is the event's `user`,
 * else the envelope's one authorization when it is a person's. Undefined when either is missing or
 * not Slack's shape.
 */
export function readContextChange(event: unknown, authorizations: unknown): { user: string; channel: string } | undefined {
  if (!isObject(event)) return undefined;
  const channel = readViewedChannel(event['context']);
  if (channel === undefined) return undefined;
  const user = typeof event['user'] === 'string' ? event['user'] : personAuthorized(authorizations);
  return user !== undefined && SLACK_USER.test(user) ? { user, channel } : undefined;
}

function personAuthorized(authorizations: unknown): string | undefined {
  if (!Array.isArray(authorizations) || authorizations.length !== 1) return undefined;
  const [only] = authorizations as unknown[];
  return isObject(only) && only['is_bot'] === false && typeof only['user_id'] === 'string' ? only['user_id'] : undefined;
}

/** The person who opened their DM with the app (`app_home_opened`, `tab: "messages"`); undefined otherwise. */
export function readMessagesOpened(event: unknown): { user: string; channel: string; context: unknown } | undefined {
  if (!isObject(event) || event['tab'] !== 'messages') return undefined;
  const { user, channel } = event;
  if (typeof user !== 'string' || typeof channel !== 'string' || !SLACK_USER.test(user) || !DM.test(channel)) return undefined;
  return { user, channel, context: event['context'] };
}

/**
 * The suggested prompts of a person's DM with the app, at most once a day: under `agent_view` they
 * live at the top of the Messages tab, not in a thread (`slack:assistant:<DM>`, no thread).
 */
export function messagesTabPromptsRow(channel: string, day: string): NewOutboxRow {
  return {
    key: `assistant:prompts:${channel}:${day}`,
    destination: assistantDestination(channel),
    kind: ASSISTANT_PROMPTS_KIND,
    payload: { kind: ASSISTANT_PROMPTS_KIND },
  };
}

/**
 * A request in a person's DM with the app routes as the route of the channel they were last seen
 * viewing (`app_context_changed`) when that channel has its own `slack.channels` entry; else as a
 * direct message's. Only the route changes: the run still reports in the DM's thread.
 */
export async function withViewedChannelRoute(
  trigger: TriggerInput,
  settings: Pick<SettingRepository, 'get'>,
  routedChannels: ReadonlySet<string>,
): Promise<TriggerInput> {
  if (trigger.kind !== 'start' || trigger.payload.origin.source !== 'slack' || !DM.test(trigger.payload.origin.channel ?? '')) return trigger;
  const requester = trigger.payload.requester;
  if (requester?.platform !== 'slack' || !SLACK_USER.test(requester.id)) return trigger;
  const viewed = await settings.get(viewedChannelKey(requester.id));
  if (!viewed || !routedChannels.has(viewed)) return trigger;
  return { ...trigger, payload: { ...trigger.payload, origin: { source: 'slack', channel: viewed } } };
}
