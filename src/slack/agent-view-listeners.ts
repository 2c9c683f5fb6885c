import type { AccessPolicy } from '../core/ports/intake.js';
import type { OutboxMessage } from '../core/ports/messages.js';
import { anchorAliasSetting } from '../core/ports/setting-names.js';
import type { AnchorRepository, SettingRepository, TrackedRunRepository, TriggerRepository } from '../core/ports/store.js';
import type { TriggerInput } from '../core/ports/triggers.js';
import type { IntakeService } from '../core/intake/intake-service.js';
import { messagesTabPromptsRow, readContextChange, readMessagesOpened, readSessionStop, readViewedChannel, viewedChannelKey } from './agent-view.js';
import { slackRequester, slackUserRefusal, type SlackPerson } from './access.js';
import { cancelGrant, cancelRefusal, starterOf } from './cancel-permission.js';
import { threadKey } from './normalise.js';
import { eventOrgs } from './slack-person.js';
import type { ListenerApp } from './event-router.js';

export interface AgentViewDeps {
  intake: Pick<IntakeService, 'owe'>;
  /** Stores a trigger as every listener does (the route and the places it reports to added). */
  submit: (trigger: TriggerInput) => Promise<void>;
  access: AccessPolicy;
  /** The thread's run: its own, or the run of the request whose status message started the thread. */
  anchors: Pick<AnchorRepository, 'currentRunVia'>;
  trackedRuns: Pick<TrackedRunRepository, 'get'>;
  triggers: Pick<TriggerRepository, 'getByKey'>;
  /** `console.admins`: may stop any run. */
  admins: readonly string[];
  settings: Pick<SettingRepository, 'set'>;
  now: () => number;
}

/**
 * The listeners of Slack's agent messaging experience (agent-view.ts): verify (Bolt did), read,
 * store — no Slack call. The older assistant panel's events stay in listeners.ts for apps installed
 * with `assistant_view`.
 */
export function registerAgentViewListeners(app: ListenerApp, deps: AgentViewDeps): void {
  const denied = (person: SlackPerson) => slackUserRefusal(deps.access, person);

  // The person opened their DM with the app: its suggested prompts (once a day), and what they view.
  app.event('app_home_opened', async ({ event, body }) => {
    const opened = readMessagesOpened(event);
    if (!opened) return;
    const viewed = opened.context === undefined ? undefined : readViewedChannel(opened.context);
    if (viewed !== undefined) await deps.settings.set(viewedChannelKey(opened.user), viewed);
    if (denied({ id: opened.user, orgs: eventOrgs(event, body) })) return;
    await deps.intake.owe([messagesTabPromptsRow(opened.channel, new Date(deps.now()).toISOString().slice(0, 10))]);
  });

  // The person looks at something else: the channel in view routes their DM's requests (withViewedChannelRoute).
  app.event('app_context_changed', async ({ event, body }) => {
    const change = readContextChange(event, (body as { authorizations?: unknown }).authorizations);
    if (change) await deps.settings.set(viewedChannelKey(change.user), change.channel);
  });

  // Slack's own stop button of a run's session: a stop like Cancel, by the same rules. A thread
  // without a run of ours is acknowledged and left alone; a resent event is the same trigger.
  app.event('agent_session_stopped', async ({ event, body }) => {
    const stop = readSessionStop(event);
    const eventId = (body as { event_id?: unknown }).event_id;
    if (!stop || typeof eventId !== 'string') return;
    const anchor = threadKey(stop.channel, stop.threadTs);
    const runId = await deps.anchors.currentRunVia(anchor, anchorAliasSetting(anchor));
    const run = runId === undefined ? undefined : await deps.trackedRuns.get(runId);
    if (!run) return;
    const key = `slack:stop:${eventId}`;
    const starter = run.triggerKey ? starterOf(await deps.triggers.getByKey(run.triggerKey)) : undefined;
    const person = { id: stop.user, orgs: eventOrgs(event, body) };
    // The access policy is applied where the trigger is stored (a private refusal); here who may stop this run.
    if (!denied(person) && !cancelGrant({ user: stop.user, channel: stop.channel }, run, starter, deps.admins)) {
      const refusal: OutboxMessage = { kind: 'notice', text: cancelRefusal(run.runId, run, starter), privateTo: stop.user };
      await deps.intake.owe([{ key: `notice:denied:${key}`, destination: anchor, kind: 'notice', payload: refusal }]);
      return;
    }
    await deps.submit({ kind: 'cancel', key, source: 'slack', anchor, payload: { requester: slackRequester(person), runId: run.runId } });
  });
}
