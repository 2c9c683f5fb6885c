import type { App } from '@slack/bolt';
import { registerAgentViewListeners } from './agent-view-listeners.js';
import { registerAnswerListeners } from './answer-listeners.js';
import { EventRouter, type ListenerApp } from './event-router.js';
import { registerApprovalListeners } from './approval-listeners.js';
import { registerAssistantListeners } from './assistant-listeners.js';
import { registerAgentCommand } from './command-listener.js';
import { registerHomeListeners } from './home-listeners.js';
import { listenerSubmit } from './listener-submit.js';
import { registerRequestListeners } from './request-listeners.js';
import type { ListenerDeps } from './listener-deps.js';

export type { ListenerDeps } from './listener-deps.js';

/**
 * The Slack listeners: normalise, store — nothing slow. What reaches them is verified already: over
 * HTTP our route checked Slack's signature (events-endpoint.ts; Bolt's own check is off, slack-app.ts), in
 * Socket Mode it came over the connection opened with the app token. The trigger is stored
 * before Bolt answers Slack (processBeforeResponse); a store failure throws, Slack gets an error and
 * retries, and the retry is deduplicated on the message's key. Events API events reach their
 * listeners through one table (event-router.ts), not through every listener's chain.
 */
export function registerListeners(bolt: App, deps: ListenerDeps): void {
  const router = new EventRouter();
  bolt.use(router.middleware);
  const app = router.listenerApp(bolt);
  const access = deps.access;
  const routedChannels = new Set(deps.routeChoices.map((choice) => choice.value).filter((value) => value !== '*'));
  const submit = listenerSubmit({ intake: deps.intake, settings: deps.settings, routedChannels, logger: deps.logger });
  registerRequestListeners(app, deps, access, submit);
  registerAgentCommand(app, deps, submit);
  registerHomeListeners(app, deps, access, submit);
  registerAssistantListeners(app, deps, access);
  // Slack's agent messaging experience: the DM opened, the channel in view, a session's stop button.
  registerAgentViewListeners(app, { ...deps, access, submit: (trigger) => submit(trigger) });
  // The Answer button of a BLOCKED announcement and its modal (answer-listeners.ts).
  registerAnswerListeners(app, { access, trackedRuns: deps.trackedRuns, openModal: deps.openModal, submit: (trigger) => submit(trigger), logger: deps.logger });
  // Approve and Reject on a request waiting for approval (approval-listeners.ts).
  if (deps.approvals) registerApprovalListeners(app, { approvals: deps.approvals, logger: deps.logger });
  acknowledgeTheRest(app);
}

/** Bolt answers an interaction nobody acknowledges with a 404 after 3 s: acknowledge the rest. */
function acknowledgeTheRest(app: ListenerApp): void {
  app.action(/^(?!(cancel_run|home_start_run|answer_run|approve_run|reject_run)$).*/, async ({ ack }) => ack());
  app.shortcut(/^(?!send_to_agent$).*/, async ({ ack }) => ack());
  app.view(/^(?!(start_run|answer_run)$).*/, async ({ ack }) => ack());
  // A string or pattern matches submissions only (Bolt's default view type): a closed modal needs its own.
  app.view({ type: 'view_closed' }, async ({ ack }) => ack());
  app.command(/^(?!\/agent$).*/, async ({ ack }) =>
    ack({ response_type: 'ephemeral', text: 'Mention me in a channel or send me a direct message to start a run.' }),
  );
}
