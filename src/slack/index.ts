import type { SlackConfig } from './slack-config.js';
import type { AccessPolicy, PromptEnricher } from '../core/ports/intake.js';
import type { Notifier, SessionPlaces } from '../core/ports/notifier.js';
import type { Store } from '../core/ports/store.js';
import type { Endpoint } from '../http/server.js';
import { SlackPromptEnricher } from './prompt-context.js';
import { createSlackApp, type SlackParts } from './slack-app.js';
import { SlackNotifier } from './slack-notifier.js';
import { slackEventsEndpoint } from './events-endpoint.js';
import { anchorAliasSetting } from '../core/ports/setting-names.js';
import { HomeNotifier } from './home-notifier.js';
import { SlackPlacesNotifier } from './places-notifier.js';
import { UnfurlNotifier } from './unfurl.js';
import { AssistantNotifier } from './assistant.js';
import { showsSlackSession, SlackSessions } from './agent-session.js';
import { slackDisplayName, slackUserByEmail } from './user-directory.js';
import { republishHomeAfterKeyRemoved } from './home-refresh.js';

/** What the Slack integration plugs into the service. */
export interface SlackIntegration {
  /** `/slack/events` in HTTP mode; undefined in Socket Mode (the route then answers 404). */
  route: Endpoint | undefined;
  stop(): Promise<void>;
  notifier: Notifier;
  enricher: PromptEnricher;
  access: AccessPolicy;
  /** The Slack user with a confirmed email (`users.lookupByEmail`), for Linear people. */
  userByEmail(email: string): Promise<string | undefined>;
  /** A Slack user's display name (`users.info`), for the console. */
  displayName(user: string): Promise<string | undefined>;
  /** The bot token's workspace (team id from `auth.test` at start), when Slack named it. */
  teamId: string | undefined;
  /** A person's key was removed outside Slack (the console): republishes their Home tab when they have opened it. */
  keyRemoved(user: string): Promise<void>;
  /** Slack's threads and channels: a run shown there is an agent session, owed each change of its phase. */
  sessionPlaces: SessionPlaces;
}

/** Builds the Slack integration: Bolt on our route (HTTP) or a WebSocket (Socket Mode), the notifier and context; `parts.access` is the service's one policy. */
export async function startSlack(config: SlackConfig, parts: SlackParts & { store: Store }): Promise<SlackIntegration> {
  const { intake, store, access, logger, now } = parts;
  const slack = await createSlackApp(config, parts);
  const transport = config.transport;
  let route: Endpoint | undefined;
  if (transport.kind === 'http' && slack.receiver) {
    route = slackEventsEndpoint({ receiver: slack.receiver, app: slack.app, signingSecret: transport.signingSecret, logger });
    logger.info({ botUserId: slack.botUserId }, 'Slack is on (HTTP): POST /slack/events');
  } else {
    await slack.app.start();
    logger.info({ botUserId: slack.botUserId }, 'Slack is on (Socket Mode): connected, no public URL needed');
  }
  return {
    route,
    stop: async () => {
      if (transport.kind === 'socket') await slack.app.stop();
    },
    notifier: new SlackPlacesNotifier(
      new SlackNotifier({
        client: slack.client,
        logger,
        scrub: slack.scrub,
        sessions: new SlackSessions({ client: slack.sessionClient, logger: logger.child({ component: 'slack-sessions' }), scrub: slack.scrub }),
        // A status message posted at a bare channel starts a thread: point it at the trigger's anchor.
        onThreadStarted: async ({ thread, triggerKey }) => {
          const trigger = await store.triggers.getByKey(triggerKey);
          if (trigger) await store.settings.set(anchorAliasSetting(thread), trigger.anchor);
        },
      }),
      {
        home: new HomeNotifier({
          client: slack.client,
          runs: store.operator,
          trackedRuns: store.trackedRuns,
          access,
          outbox: store.outbox,
          keys: { attribution: config.attribution ?? 'service', personKeys: store.personKeys, settings: store.settings },
          usage: store.usage,
          now,
        }),
        unfurl: new UnfurlNotifier({ client: slack.client, runs: store.trackedRuns, triggers: store.triggers }),
        assistant: new AssistantNotifier({ client: slack.client, settings: store.settings }),
      },
    ),
    enricher: new SlackPromptEnricher({
      client: slack.client,
      botUserId: slack.botUserId,
      followups: config.followups,
      ...(config.context && { context: config.context }),
    }),
    access,
    userByEmail: (email) => slackUserByEmail(slack.client, email),
    displayName: (user) => slackDisplayName(slack.client, user),
    teamId: slack.teamId,
    keyRemoved: async (user) => {
      await republishHomeAfterKeyRemoved({ settings: store.settings, intake }, user, now());
    },
    sessionPlaces: showsSlackSession,
  };
}
