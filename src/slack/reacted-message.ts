import type { SlackCalls } from './slack-calls.js';
import { withAttachments } from '../core/attachments.js';
import type { ReadRequest } from '../core/ports/intake.js';
import { slackFiles } from './files.js';
import { messageRequest } from './shortcut.js';

/** Subtypes of a person's message; any other (joins, bot posts, …) is not a request. */
const PERSON_SUBTYPES = new Set([undefined, 'file_share', 'thread_broadcast']);

/**
 * The request a reaction points at (`start-triggers.ts`): the message it was added to, read in the
 * worker with one `conversations.history` call (latest = oldest = its ts, inclusive), quoted as "Send
 * to agent" quotes a message, its files listed. A reaction starts a run only on a message at the top
 * of a channel (its thread is the run's thread, and Slack's event does not say whether the message is
 * a reply), written by a person; anything else is refused with a reason the status message shows.
 * Slack refusing the read is a refusal too; a network failure throws, and the trigger is retried.
 */
export async function readReactedMessage(client: SlackCalls, reference: unknown, botUserId: string): Promise<ReadRequest> {
  const { channel, ts } = (reference ?? {}) as { channel?: unknown; ts?: unknown };
  if (typeof channel !== 'string' || typeof ts !== 'string') return { kind: 'refused', reason: 'the reaction did not say which message it was on' };
  let messages: Array<Record<string, unknown>>;
  try {
    const answer = await client.conversations.history({ channel, latest: ts, oldest: ts, inclusive: true, limit: 1 });
    messages = (answer.messages ?? []) as Array<Record<string, unknown>>;
  } catch (error) {
    const refused =
      (error as { code?: string; data?: { error?: unknown } }).code === 'slack_webapi_platform_error'
        ? (error as { data?: { error?: unknown } }).data?.error
        : undefined;
    if (typeof refused === 'string') return { kind: 'refused', reason: `Slack would not let me read that message (${refused.slice(0, 60)})` };
    throw error;
  }
  const message = messages.find((found) => found['ts'] === ts);
  if (!message) {
    return {
      kind: 'refused',
      reason:
        'a reaction starts a run only on a message at the top of the channel, and this one is a reply in a thread or was deleted; in a thread, mention me instead',
    };
  }
  const subtype = typeof message['subtype'] === 'string' ? message['subtype'] : undefined;
  const author = typeof message['user'] === 'string' ? message['user'] : undefined;
  if (message['bot_id'] !== undefined || author === botUserId || !PERSON_SUBTYPES.has(subtype)) {
    return { kind: 'refused', reason: 'that message was not written by a person; a reaction starts a run only on a person’s message' };
  }
  const request = messageRequest(typeof message['text'] === 'string' ? message['text'] : '', author);
  if (!request) return { kind: 'refused', reason: 'that message has no text to act on' };
  return { kind: 'request', prompt: withAttachments(request.prompt, slackFiles(message['files'])), title: request.title };
}
