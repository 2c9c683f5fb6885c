import type { AllMiddlewareArgs, App } from '@slack/bolt';
import type { AccessPolicy } from '../core/ports/intake.js';
import type { Logger } from '../core/ports/logger.js';
import type { IntakeService } from '../core/intake/intake-service.js';
import type { AnchorRepository, PersonKeyRepository, SettingRepository, TrackedRunRepository, TriggerRepository } from '../core/ports/store.js';
import {
  AGENT_HELP,
  cancelCommandTrigger,
  connectText,
  disconnectText,
  parseAgentCommand,
  promptCommandTrigger,
  statusText,
  whoamiText,
} from './agent-command.js';
import type { TriggerInput } from '../core/ports/triggers.js';
import { CANCEL_ACTION_ID } from './blocks.js';
import { cancelGrant, cancelRefusal, starterOf } from './cancel-permission.js';
import { checkSlashCommand, refusedCommandText } from './command-form.js';
import { addressedTrigger, messageTrigger, type Followups, type SlackMessage } from './normalise.js';
import { readMessageShortcut, SEND_TO_AGENT_CALLBACK_ID, sendToAgentTrigger } from './shortcut.js';
import { keywordTrigger, reactionTrigger, readReaction, triggerOf, type StartTriggers } from './start-triggers.js';
import { HOME_OPENED_KIND } from './home-notifier.js';
import { readStartRunSubmission, startRunTrigger, submissionErrors } from './home-start.js';
import { HOME_START_ACTION_ID, homeDestination, homeUserOf, START_RUN_CALLBACK_ID, startRunModal, type RouteChoice } from './home-view.js';
import type { View } from '@slack/types';
import { unfurlRow } from './unfurl.js';
import { slackFiles } from './files.js';
import { promptsRow, readAssistantThread, withAssistantStatus, withContextRoute } from './assistant.js';
import { assistantContextKey, assistantThreadKey, homeOpenedKey, personKeyRefusedKey } from '../core/ports/setting-keys.js';
import { registerAnswerListeners } from './answer-listeners.js';
import { republishHomeAfterKeyRemoved } from './home-refresh.js';
import { withViewedChannelRoute } from './agent-view.js';
import { registerAgentViewListeners } from './agent-view-listeners.js';

export interface ListenerDeps {
  intake: IntakeService;
  /** Read-only views of tracked runs for `/agent status` and `/agent cancel`. */
  trackedRuns: Pick<TrackedRunRepository, 'get' | 'listTrackedByAnchorPrefix'>;
  /** Who started a run (`/agent cancel` by name is for its channel, its starter and admins). */
  triggers: Pick<TriggerRepository, 'getByKey'>;
  /** A thread's run, for the stop button of its agent session. */
  anchors: Pick<AnchorRepository, 'currentRunVia'>;
  /** `console.admins`: Slack user IDs who may cancel any run from anywhere. */
  admins: readonly string[];
  /** People's keys for `/agent whoami` and `/agent disconnect` (only what may be shown is read). */
  personKeys: Pick<PersonKeyRepository, 'get' | 'remove'>;
  /** The console page where a person's key is connected (`/agent connect`); undefined without PUBLIC_URL. */
  keyPageUrl: string | undefined;
  /** `slack.allowed_users` (empty = everyone): the service's one policy, the intake's too. */
  access: AccessPolicy;
  now: () => number;
  followups: Followups;
  botUserId: string;
  botId: string | undefined;
  logger: Logger;
  /** The routes the Start a run modal offers (one per `slack.channels` entry and the default). */
  routeChoices: readonly RouteChoice[];
  /** Remembers who opened their Home tab and which assistant threads people open (only those are kept current). */
  settings: Pick<SettingRepository, 'get' | 'set'>;
  /** `slack.unfurl_domains`: links on these domains (or their subdomains) are previewed; empty = none. */
  unfurlDomains: readonly string[];
  /** The channel routes' `trigger`s: keywords and an emoji that start runs without a mention. */
  startTriggers: StartTriggers;
  /** `views.open` with a click's trigger_id: the one Slack call a listener makes (it must happen within 3 s). */
  openModal: (triggerId: string, view: View) => Promise<unknown>;
}

/**
 * A run started from Slack by someone who uses their Home tab also keeps it current (an outbox
 * destination of its own). Only then: each state change costs a `views.publish`, delivered one at a
 * time per person, which people who never look at the tab should not pay for.
 */
async function withHome(trigger: TriggerInput | undefined, settings: ListenerDeps['settings']): Promise<TriggerInput | undefined> {
  if (trigger?.kind !== 'start' || !trigger.payload.requester || !homeUserOf(homeDestination(trigger.payload.requester.id))) return trigger;
  const home = homeDestination(trigger.payload.requester.id);
  if (trigger.payload.destinations.includes(home)) return trigger;
  if ((await settings.get(homeOpenedKey(trigger.payload.requester.id))) === undefined) return trigger;
  return { ...trigger, payload: { ...trigger.payload, destinations: [...trigger.payload.destinations, home] } };
}

/**
 * A human's plain message (no subtype: edits, joins, deletions and bot posts never trigger), or one
 * with files (`file_share`), whose files are listed with the request.
 */
function humanMessage(event: Record<string, unknown>, deps: ListenerDeps): SlackMessage | undefined {
  if ((event['subtype'] !== undefined && event['subtype'] !== 'file_share') || event['bot_id'] !== undefined) return undefined;
  const { channel, user, text, ts } = event;
  if (typeof channel !== 'string' || typeof user !== 'string' || typeof ts !== 'string' || typeof text !== 'string') return undefined;
  if (user === deps.botUserId) return undefined;
  const threadTs = typeof event['thread_ts'] === 'string' ? event['thread_ts'] : undefined;
  const channelType = typeof event['channel_type'] === 'string' ? event['channel_type'] : undefined;
  const files = slackFiles(event['files']);
  return { channel, user, text, ts, ...(threadTs && { thread_ts: threadTs }), ...(channelType && { channel_type: channelType }), ...(files && { files }) };
}

/**
 * The Slack listeners: normalise, store — nothing slow. What reaches them is verified already: over
 * HTTP our route checked Slack's signature (slack-route.ts; Bolt's own check is off, slack-app.ts), in
 * Socket Mode it came over the connection opened with the app token. The trigger is stored
 * before Bolt answers Slack (processBeforeResponse); a store failure throws, Slack gets an error and
 * retries, and the retry is deduplicated on the message's key.
 */
export function registerListeners(app: App, deps: ListenerDeps): void {
  const { access } = deps;
  const routedChannels = new Set(deps.routeChoices.map((choice) => choice.value).filter((value) => value !== '*'));
  const submit = async (input: TriggerInput | undefined, context: Pick<AllMiddlewareArgs['context'], 'retryNum'> = {}) => {
    const home = await withHome(input, deps.settings);
    const routed = home && (await withViewedChannelRoute(await withContextRoute(home, deps.settings, routedChannels), deps.settings, routedChannels));
    const trigger = routed && withAssistantStatus(routed);
    if (!trigger) return;
    const { accepted } = await deps.intake.submit(trigger);
    deps.logger.debug(
      { key: trigger.key, kind: trigger.kind, accepted, retryNum: context.retryNum },
      accepted ? 'slack trigger stored' : 'slack trigger already stored',
    );
  };

  app.event('app_mention', async ({ event, context }) => {
    const message = humanMessage(event as unknown as Record<string, unknown>, deps);
    if (message) await submit(addressedTrigger(message, deps.botUserId), context);
  });

  app.event('message', async ({ event, context }) => {
    const message = humanMessage(event as unknown as Record<string, unknown>, deps);
    if (!message) return;
    // A top-level message opening with the channel's keyword (start-triggers.ts) is a request too.
    const trigger =
      messageTrigger(message, deps.botUserId, deps.followups) ?? keywordTrigger(message, deps.botUserId, triggerOf(deps.startTriggers, message.channel));
    await submit(trigger, context);
  });

  // The channel's trigger emoji added to a message: a request whose words the worker reads.
  app.event('reaction_added', async ({ event, context }) => {
    const reaction = readReaction(event);
    if (reaction) await submit(reactionTrigger(reaction, deps.botUserId, triggerOf(deps.startTriggers, reaction.channel)), context);
  });

  // The status message's Cancel button: its value is the thread key, the run's anchor.
  app.action({ action_id: CANCEL_ACTION_ID, type: 'block_actions' }, async ({ ack, body, action, context }) => {
    const value = 'value' in action && typeof action.value === 'string' ? action.value : undefined;
    if (value?.startsWith('slack:')) {
      const user = body.user.id;
      await submit(
        {
          kind: 'cancel',
          key: `slack:action:${body.user.id}:${'action_ts' in action ? action.action_ts : ''}`,
          source: 'slack',
          anchor: value,
          payload: { requester: { platform: 'slack', id: user, name: `<@${user}>` } },
        },
        context,
      );
    }
    await ack();
  });

  // Answers are the command's own HTTP response (ephemeral): no Slack call from a listener.
  app.command('/agent', async ({ command, ack, context }) => {
    // HTTP requests were checked before Bolt (inspect-request); Socket Mode commands are checked here.
    const form = checkSlashCommand(command);
    if (!form.ok) return ack({ response_type: 'ephemeral', text: refusedCommandText(form) });
    const parsed = parseAgentCommand(command.text ?? '');
    const allowed = !access.deny({ source: 'slack', payload: { requester: { platform: 'slack', id: command.user_id } } });
    const say = (text: string) => ack({ response_type: 'ephemeral', text });
    if (parsed.kind === 'help') return say(AGENT_HELP);
    // Before status too: someone not allowed to use the bot sees no runs.
    if (!allowed) return say('Sorry, only the people listed in this service’s slack.allowed_users can see, start, steer or stop runs here.');
    if (parsed.kind === 'connect') return say(connectText(command.user_id, deps.keyPageUrl));
    if (parsed.kind === 'whoami') return say(whoamiText(await deps.personKeys.get(command.user_id), deps.now()));
    if (parsed.kind === 'disconnect') {
      const removed = await deps.personKeys.remove(command.user_id);
      // The Home tab says whether the key is connected: republished now for someone who looks at it.
      if (removed) await republishHomeAfterKeyRemoved(deps, command.user_id, deps.now());
      return say(disconnectText(removed));
    }
    if (parsed.kind === 'status') return say(statusText(await deps.trackedRuns.listTrackedByAnchorPrefix(`slack:${command.channel_id}:`, 20), deps.now()));
    if (parsed.kind === 'cancel') {
      if (!parsed.runId) return say('Which run? Use `/agent cancel <run-id>`; `/agent status` lists them.');
      const run = await deps.trackedRuns.get(parsed.runId);
      if (!run || !run.anchor.startsWith('slack:')) return say(`I do not know a run \`${parsed.runId}\` started from Slack.`);
      const starter = run.triggerKey ? starterOf(await deps.triggers.getByKey(run.triggerKey)) : undefined;
      if (!cancelGrant({ user: command.user_id, channel: command.channel_id }, run, starter, deps.admins)) return say(cancelRefusal(run.runId, run, starter));
      await submit(cancelCommandTrigger(run, command.user_id, command.trigger_id), context);
      return say(`Stopping \`${run.runId}\`; its thread will say when it has stopped.`);
    }
    await submit(promptCommandTrigger(command, parsed.text), context);
    return say('On it: the run’s status is posted in this channel; reply in its thread to steer it.');
  });

  // "Send to agent" on a message: stored like a mention of it, then acknowledged; nothing else here.
  app.shortcut(SEND_TO_AGENT_CALLBACK_ID, async ({ ack, body, context }) => {
    const shortcut = readMessageShortcut(body);
    if (shortcut) await submit(sendToAgentTrigger(shortcut), context);
    await ack();
  });

  // The Home tab is published from the outbox, never from here: once a day on opening, and at every
  // state change of the runs the person starts from now on (their Home destination) and of their
  // unfinished earlier ones (the opening's delivery adds it to them: HomeNotifier.keepCurrent).
  app.event('app_home_opened', async ({ event }) => {
    const { user, tab } = event as unknown as Record<string, unknown>;
    if (tab !== 'home' || typeof user !== 'string' || !homeUserOf(homeDestination(user))) return;
    const day = new Date(deps.now()).toISOString().slice(0, 10);
    const destination = homeDestination(user);
    await deps.settings.set(homeOpenedKey(user), day);
    // Once a day, and again once their key changed (connected, replaced, refused): the tab says whether it is connected.
    const key = await deps.personKeys.get(user);
    const refusedAt = /"at":(\d+)/.exec((await deps.settings.get(personKeyRefusedKey(user))) ?? '')?.[1];
    const keyMark = key ? `:key:${key.connectedAt}${refusedAt ? `:refused:${refusedAt}` : ''}` : '';
    await deps.intake.owe([{ key: `home:${user}:opened:${day}${keyMark}`, destination, kind: HOME_OPENED_KIND, payload: { kind: HOME_OPENED_KIND } }]);
  });

  // The assistant panel: a message in its thread is a DM to the bot (the `message` listener makes it a
  // request as a mention's); here the thread is remembered with the channel the person is looking at
  // (its route is the panel's requests' route), and its suggested prompts owed.
  app.event('assistant_thread_started', async ({ event }) => {
    const thread = readAssistantThread(event);
    if (!thread) return;
    await deps.settings.set(assistantThreadKey(thread.channel, thread.threadTs), thread.user);
    await deps.settings.set(assistantContextKey(thread.channel, thread.threadTs), thread.contextChannel);
    if (!access.deny({ source: 'slack', payload: { requester: { platform: 'slack', id: thread.user } } })) {
      await deps.intake.owe([promptsRow(thread.channel, thread.threadTs)]);
    }
  });

  // The person looked at another channel with the panel open: its requests route as that channel's now.
  app.event('assistant_thread_context_changed', async ({ event }) => {
    const thread = readAssistantThread(event);
    if (thread) await deps.settings.set(assistantContextKey(thread.channel, thread.threadTs), thread.contextChannel);
  });

  // A pasted session link: the preview is owed (stored) here and sent by the outbox. Someone
  // slack.allowed_users leaves out sees no run here either, so their links are not previewed.
  app.event('link_shared', async ({ event }) => {
    const fields = event as unknown as Record<string, unknown>;
    const user = typeof fields['user'] === 'string' ? fields['user'] : '';
    if (access.deny({ source: 'slack', payload: { requester: { platform: 'slack', id: user } } })) return;
    const row = unfurlRow(fields, deps.unfurlDomains);
    if (row) await deps.intake.owe([row]);
  });

  app.action({ action_id: HOME_START_ACTION_ID, type: 'block_actions' }, async ({ ack, body }) => {
    await ack();
    if (access.deny({ source: 'slack', payload: { requester: { platform: 'slack', id: body.user.id } } })) return;
    // A modal needs the click's trigger_id within 3 s, so this cannot wait for the outbox: the call is
    // bounded by its own short timeout (the answer to Slack waits for it), and a failure costs only the
    // modal — the person clicks again.
    try {
      await deps.openModal(body.trigger_id, startRunModal(deps.routeChoices));
    } catch (error) {
      deps.logger.warn({ code: (error as { code?: unknown }).code }, 'could not open the Start a run modal');
    }
  });

  // A submitted Start a run modal: refused or invalid input is shown in the modal; else stored, then closed.
  app.view(START_RUN_CALLBACK_ID, async ({ ack, body, context }) => {
    const submission = readStartRunSubmission(body);
    if (!submission) return ack();
    const refusal = access.deny({ source: 'slack', payload: { requester: { platform: 'slack', id: submission.user } } });
    const errors = refusal !== undefined ? { request: refusal } : submissionErrors(submission, deps.routeChoices);
    if (errors) return ack({ response_action: 'errors', errors });
    await submit(startRunTrigger(submission), context);
    return ack();
  });

  // Slack's agent messaging experience: the DM opened, the channel in view, a session's stop button.
  registerAgentViewListeners(app, { ...deps, access, submit: (trigger) => submit(trigger) });

  // The Answer button of a BLOCKED announcement and its modal (answer-listeners.ts).
  registerAnswerListeners(app, { access, trackedRuns: deps.trackedRuns, openModal: deps.openModal, submit: (trigger) => submit(trigger), logger: deps.logger });

  // Bolt answers an interaction nobody acknowledges with a 404 after 3 s: acknowledge the rest.
  app.action(/^(?!(cancel_run|home_start_run|answer_run)$).*/, async ({ ack }) => ack());
  app.shortcut(/^(?!send_to_agent$).*/, async ({ ack }) => ack());
  app.view(/^(?!(start_run|answer_run)$).*/, async ({ ack }) => ack());
  // A string or pattern matches submissions only (Bolt's default view type): a closed modal needs its own.
  app.view({ type: 'view_closed' }, async ({ ack }) => ack());
  app.command(/^(?!\/agent$).*/, async ({ ack }) =>
    ack({ response_type: 'ephemeral', text: 'Mention me in a channel or send me a direct message to start a run.' }),
  );
}
