/**
 * The Microsoft Teams bot (docs/teams.md): the messages endpoint, the notifier of Teams places, the
 * thread's context for a run's prompt and the people the roster told of, over one Bot Connector
 * client acting as the bot's Entra app. Loaded only when Teams is on.
 */
import type { ApprovalDesk } from '../core/approvals/approval-desk.js';
import type { IntakeService } from '../core/intake/intake-service.js';
import type { Clock } from '../core/ports/clock.js';
import type { AccessPolicy, PromptEnricher } from '../core/ports/intake.js';
import type { Logger } from '../core/ports/logger.js';
import type { Notifier } from '../core/ports/notifier.js';
import { anchorAliasSetting } from '../core/ports/setting-names.js';
import type { Store } from '../core/ports/store.js';
import type { Route } from '../core/intake/routing.js';
import type { ContextLimits, Followups } from '../config-kit/conversation-keys.js';
import type { Endpoint } from '../http/server.js';
import type { DescribePeople } from '../surface-kit/people-in-words.js';
import type { PeopleDirectory } from '../surface-kit/started-surface.js';
import { AccessToken } from './access-token.js';
import { handleActivity } from './activity-handler.js';
import { ConnectorClient } from './connector-client.js';
import { connectorKeys } from './connector-keys.js';
import { teamsMessagesEndpoint } from './messages-endpoint.js';
import { PlaceMemory } from './place-memory.js';
import { Roster } from './roster.js';
import { TeamsNotifier } from './teams-notifier.js';
import { ThreadContext } from './thread-context.js';

export interface TeamsSettings {
  clientId: string;
  clientSecret: string;
  tenantId: string;
  openIdMetadataUrl: string;
  loginUrl: string;
  serviceUrls: string[];
  followups: Followups;
  context: ContextLimits;
  channels: Record<string, Route>;
}

export interface TeamsParts {
  intake: IntakeService;
  store: Store;
  logger: Logger;
  clock: Clock;
  access: AccessPolicy;
  approvals: Pick<ApprovalDesk, 'decide'>;
  people: DescribePeople;
}

/** What the Teams bot plugs into the service. */
export interface TeamsIntegration {
  route: Endpoint;
  notifier: Notifier;
  enricher: PromptEnricher;
  people: PeopleDirectory;
}

export async function startTeams(settings: TeamsSettings, parts: TeamsParts): Promise<TeamsIntegration> {
  const { intake, store, logger, clock } = parts;
  const now = () => clock.now();
  const keys = connectorKeys({ metadataUrl: settings.openIdMetadataUrl, logger });
  // Read once now, so that a wrong TEAMS_OPENID_METADATA_URL is said at start (the first activity would wait on it otherwise).
  await keys.keys(now());
  const client = new ConnectorClient(new AccessToken(settings, now));
  const places = new PlaceMemory(store.settings);
  const context = new ThreadContext({ settings: store.settings, limits: settings.context });
  const roster = new Roster({ client, settings: store.settings, places, logger });
  const route = teamsMessagesEndpoint({
    clientId: settings.clientId,
    keys,
    serviceUrls: settings.serviceUrls,
    logger,
    now,
    handle: (activity) =>
      handleActivity(activity, {
        clientId: settings.clientId,
        tenantId: settings.tenantId,
        followups: settings.followups,
        intake,
        store,
        access: parts.access,
        approvals: parts.approvals,
        places,
        context,
        now,
      }),
  });
  logger.info({ clientId: settings.clientId, channels: Object.keys(settings.channels) }, 'Microsoft Teams is on: POST /teams/messages');
  const botId = `28:${settings.clientId}`;
  return {
    route,
    notifier: new TeamsNotifier({
      client,
      places,
      settings: store.settings,
      botId,
      tenantId: settings.tenantId,
      people: parts.people,
      logger,
      // A card posted at a bare channel starts a thread: replies there reach the run of the trigger that made it.
      onThreadStarted: async ({ thread, triggerKey }) => {
        const trigger = await store.triggers.getByKey(triggerKey);
        if (trigger) await store.settings.set(anchorAliasSetting(thread), trigger.anchor);
      },
    }),
    enricher: {
      enrich: async (trigger, payload) => {
        await roster.learn(trigger);
        return context.enrich(trigger, payload);
      },
    },
    people: {
      userByEmail: (email) => roster.userByEmail(email),
      displayName: (user) => roster.displayName(user),
      workspace: settings.tenantId,
      keyRemoved: async (person) => {
        const aad = person.replace(/^teams:/, '');
        await intake.owe([
          {
            key: `teams:key-removed:${aad}:${now()}`,
            destination: `teams:${aad}`,
            kind: 'notice',
            payload: { kind: 'notice', text: 'Your personal API key was removed: your runs now use the service’s key.', privateTo: aad },
          },
        ]);
      },
    },
  };
}
