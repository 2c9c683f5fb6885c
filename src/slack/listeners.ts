import type { AllMiddlewareArgs, App } from '@slack/bolt';
import type { Logger } from '../core/logger.js';
import type { RunService } from '../core/run-service.js';
import type { TriggerInput } from '../core/triggers.js';
import { CANCEL_ACTION_ID } from './blocks.js';
import { addressedTrigger, messageTrigger, type Followups, type SlackMessage } from './normalise.js';

export interface ListenerDeps {
  runs: RunService;
  followups: Followups;
  botUserId: string;
  botId: string | undefined;
  logger: Logger;
}

/** A human's plain message (no subtype: edits, joins, deletions and bot posts never trigger). */
function humanMessage(event: Record<string, unknown>, deps: ListenerDeps): SlackMessage | undefined {
  if (event['subtype'] !== undefined || event['bot_id'] !== undefined) return undefined;
  const { channel, user, text, ts } = event;
  if (typeof channel !== 'string' || typeof user !== 'string' || typeof ts !== 'string' || typeof text !== 'string') return undefined;
  if (user === deps.botUserId) return undefined;
  const threadTs = typeof event['thread_ts'] === 'string' ? event['thread_ts'] : undefined;
  const channelType = typeof event['channel_type'] === 'string' ? event['channel_type'] : undefined;
  return { channel, user, text, ts, ...(threadTs && { thread_ts: threadTs }), ...(channelType && { channel_type: channelType }) };
}

/**
 * The Slack listeners: verify (Bolt did), normalise, store — nothing slow. The trigger is stored
 * before Bolt answers Slack (processBeforeResponse); a store failure throws, Slack gets an error and
 * retries, and the retry is deduplicated on the message's key.
 */
export function registerListeners(app: App, deps: ListenerDeps): void {
  const submit = async (trigger: TriggerInput | undefined, context: AllMiddlewareArgs['context'] & { retryNum?: number }) => {
    if (!trigger) return;
    const { accepted } = await deps.runs.submit(trigger);
    deps.logger.debug({ key: trigger.key, kind: trigger.kind, accepted, retryNum: context.retryNum }, accepted ? 'slack trigger stored' : 'slack trigger already stored');
  };

  app.event('app_mention', async ({ event, context }) => {
    const message = humanMessage(event as unknown as Record<string, unknown>, deps);
    if (message) await submit(addressedTrigger(message, deps.botUserId), context);
  });

  app.event('message', async ({ event, context }) => {
    const message = humanMessage(event as unknown as Record<string, unknown>, deps);
    if (message) await submit(messageTrigger(message, deps.botUserId, deps.followups), context);
  });

  // The status message's Cancel button: its value is the thread key, the run's anchor.
  app.action({ action_id: CANCEL_ACTION_ID, type: 'block_actions' }, async ({ ack, body, action, context }) => {
    const value = 'value' in action && typeof action.value === 'string' ? action.value : undefined;
    if (value?.startsWith('slack:')) {
      const user = body.user.id;
      await submit(
        { kind: 'cancel', key: `slack:action:${body.user.id}:${'action_ts' in action ? action.action_ts : ''}`, source: 'slack', anchor: value, payload: { requester: { platform: 'slack', id: user, name: `<@${user}>` } } },
        context,
      );
    }
    await ack();
  });

  // Bolt answers an interaction nobody acknowledges with a 404 after 3 s: acknowledge the rest.
  app.action(/^(?!cancel_run$).*/, async ({ ack }) => ack());
  app.shortcut(/.*/, async ({ ack }) => ack());
  app.view(/.*/, async ({ ack }) => ack());
  app.command(/.*/, async ({ ack }) => ack({ response_type: 'ephemeral', text: 'Mention me in a channel or send me a direct message to start a run.' }));
}
