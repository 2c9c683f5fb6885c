import type { SlackConfig } from './slack-config.js';
import type { AccessPolicy, PromptEnricher } from '../core/intake-worker.js';
import type { Logger } from '../core/logger.js';
import type { Notifier } from '../core/notifier.js';
import type { RunService } from '../core/run-service.js';
import type { Route } from '../http/server.js';
import { slackAccessPolicy } from './access.js';
import type { ListenerDeps } from './listeners.js';
import { SlackPromptEnricher } from './prompt-context.js';
import { createSlackApp } from './slack-app.js';
import { SlackNotifier } from './slack-notifier.js';
import { slackEventsRoute } from './slack-route.js';

/** What the Slack integration plugs into the service. */
export interface SlackIntegration {
  route: Route;
  notifier: Notifier;
  enricher: PromptEnricher;
  access: AccessPolicy;
}

/** Builds the Slack integration (HTTP mode): Bolt on our route, the notifier, context and access. */
export async function startSlack(config: SlackConfig, runs: RunService, trackedRuns: ListenerDeps['trackedRuns'], logger: Logger): Promise<SlackIntegration> {
  const slack = await createSlackApp({
    botToken: config.botToken,
    signingSecret: config.signingSecret,
    apiUrl: config.apiUrl,
    followups: config.followups,
    allowedUsers: config.allowedUsers,
    runs,
    trackedRuns,
    logger,
  });
  logger.info({ botUserId: slack.botUserId }, 'Slack is on (HTTP): POST /slack/events');
  return {
    route: slackEventsRoute({ receiver: slack.receiver, signingSecret: config.signingSecret, logger }),
    notifier: new SlackNotifier({ client: slack.client }),
    enricher: new SlackPromptEnricher({ client: slack.client, botUserId: slack.botUserId }),
    access: slackAccessPolicy(config.allowedUsers),
  };
}
