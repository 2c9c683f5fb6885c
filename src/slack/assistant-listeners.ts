/**
 * The assistant panel's listeners (apps installed with `assistant_view`): a message in its thread is a
 * DM to the bot (the `message` listener makes it a request as a mention's); here the thread is
 * remembered with the channel the person is looking at (its route is the panel's requests' route),
 * and its suggested prompts owed.
 */
import type { AccessPolicy } from '../core/ports/intake.js';
import { assistantContextSetting, assistantThreadSetting } from './setting-names.js';
import { slackUserRefusal } from './access.js';
import { promptsRow, readAssistantThread } from './assistant.js';
import type { ListenerDeps } from './listener-deps.js';
import { eventOrgs } from './slack-person.js';
import type { ListenerApp } from './event-router.js';

/** Registers the assistant panel's listeners. */
export function registerAssistantListeners(app: ListenerApp, deps: Pick<ListenerDeps, 'settings' | 'intake'>, access: AccessPolicy): void {
  app.event('assistant_thread_started', async ({ event, body }) => {
    const thread = readAssistantThread(event);
    if (!thread) return;
    await deps.settings.set(assistantThreadSetting(thread.channel, thread.threadTs), thread.user);
    await deps.settings.set(assistantContextSetting(thread.channel, thread.threadTs), thread.contextChannel);
    if (!slackUserRefusal(access, { id: thread.user, orgs: eventOrgs(event, body) })) await deps.intake.owe([promptsRow(thread.channel, thread.threadTs)]);
  });

  // The person looked at another channel with the panel open: its requests route as that channel's now.
  app.event('assistant_thread_context_changed', async ({ event }) => {
    const thread = readAssistantThread(event);
    if (thread) await deps.settings.set(assistantContextSetting(thread.channel, thread.threadTs), thread.contextChannel);
  });
}
