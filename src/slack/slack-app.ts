import { App, HTTPReceiver } from '@slack/bolt';
import { WebClient, type Logger as BoltLogger, type WebClientOptions } from '@slack/web-api';
import type { Logger } from '../core/ports/logger.js';
import type { IntakeService } from '../core/intake/intake-service.js';
import type { AccessPolicy } from '../core/ports/intake.js';
import type { SlackAccessPolicy } from './access.js';
import type { Store } from '../core/ports/store.js';
import { secretScrubber } from '../core/scrub.js';
import { StartupError } from '../core/startup-error.js';
import { boltLogger } from './bolt-logger.js';
import { slackFetch } from './slack-fetch.js';
import type { SlackCalls } from './slack-calls.js';
import { SlackWebApi } from './slack-web-api.js';
import { registerListeners } from './listeners.js';
import { StoreThenAckSocketReceiver } from './socket-receiver.js';
import type { SlackConfig } from './slack-config.js';
import type { ApprovalDesk } from '../core/approvals/approval-desk.js';
import { routeChoices } from './home-view.js';

/** What the Slack app is built with besides the config: the front door, the store, whom Slack may serve, the log. */
export interface SlackParts {
  intake: IntakeService;
  store: Pick<Store, 'trackedRuns' | 'triggers' | 'anchors' | 'personKeys' | 'settings' | 'audit'>;
  /**
   * The access policy (access.ts), built once by the composition root and shared with the intake; told
   * our own organisation, as `auth.test` names it, before any listener runs.
   */
  access: AccessPolicy & Partial<Pick<SlackAccessPolicy, 'knowOwnOrganisation'>>;
  logger: Logger;
  /** The time (epoch ms) from the service's injected clock. */
  now: () => number;
  /** Decides requests waiting for approval. */
  approvals?: Pick<ApprovalDesk, 'decide'>;
}

export interface SlackApp {
  app: App;
  /** Set in HTTP mode: `/slack/events` hands requests to it. */
  receiver: HTTPReceiver | undefined;
  /** Web API client for notifiers and context (`SlackWebApi`): no queue or retries of its own (the outbox owns retries). */
  client: SlackCalls;
  /** The same for agent sessions, whose warnings are said once by the caller rather than at every call. */
  sessionClient: SlackCalls;
  botUserId: string;
  botId: string | undefined;
  /** The workspace the bot token belongs to (`auth.test`'s team_id): Sign in with Slack admits only its people. */
  teamId: string | undefined;
  /** Takes the Slack secrets out of text that came from Slack (error strings may quote a token back). */
  scrub: (text: string) => string;
}

/** The Web API client options every Slack call of the service uses (no retries of their own: the outbox owns them, docs/architecture.md §5). */
export function webClientOptions(apiUrl: string, logger?: BoltLogger): WebClientOptions {
  // Our logger, not the client's console one: its lines go through the service log's redaction.
  return { slackApiUrl: apiUrl, retryConfig: { retries: 0 }, rejectRateLimitedCalls: true, timeout: 10_000, fetch: slackFetch, ...(logger && { logger }) };
}

/**
 * Builds the Bolt app, over HTTP or Socket Mode with the same listeners. The bot's identity is read once with `auth.test`, so a wrong
 * token stops the start with a clear message instead of failing on the first mention. Bolt never
 * opens a server: `/slack/events` on our own server hands requests to `receiver.requestListener`.
 * The config reaches the listeners from here only: nothing copies it field by field on the way.
 */
export async function createSlackApp(config: SlackConfig, parts: SlackParts): Promise<SlackApp> {
  const { transport, botToken, apiUrl } = config;
  const { store } = parts;
  const scrub = secretScrubber([botToken, transport.kind === 'http' ? transport.signingSecret : transport.appToken]);
  const callsLogger = parts.logger.child({ component: 'slack-web-api' });
  const webApiLogger = boltLogger(callsLogger, scrub);
  let identity: { user_id?: string; bot_id?: string; team_id?: string; enterprise_id?: string };
  try {
    identity = await new WebClient(botToken, webClientOptions(apiUrl, webApiLogger)).auth.test();
  } catch (error) {
    const refused = (error as { data?: { error?: string } }).data?.error;
    if (refused) {
      throw new StartupError(
        `Slack refused SLACK_BOT_TOKEN at start (${refused}): use the Bot User OAuth Token (xoxb-…) from OAuth & Permissions in your Slack app`,
      );
    }
    const code = (error as { code?: string }).code ?? 'error';
    throw new StartupError(`could not reach Slack at start (${code}): check SLACK_API_URL and the network, then start again`);
  }
  if (!identity.user_id) throw new StartupError('Slack auth.test returned no bot user id: is SLACK_BOT_TOKEN a bot token (xoxb-…)?');
  // Without it no one would count as one of ours, and every request from Slack would be refused.
  if (!identity.team_id) throw new StartupError('Slack auth.test returned no team id: is SLACK_BOT_TOKEN a bot token (xoxb-…) installed in a workspace?');
  parts.access.knowOwnOrganisation?.({ team: identity.team_id, enterprise: identity.enterprise_id });
  const logger = boltLogger(parts.logger.child({ component: 'slack' }), scrub);
  const receiver =
    transport.kind === 'http'
      ? new HTTPReceiver({
          signingSecret: transport.signingSecret,
          endpoints: '/slack/events',
          // Store before answering: a crash before the trigger is stored makes Slack retry.
          processBeforeResponse: true,
          // Our route (events-endpoint.ts) verifies the signature over the exact bytes before handing the
          // request over, and is the receiver's only way in: checking it twice cost 5% of an ack.
          signatureVerification: false,
          logger,
        })
      : new StoreThenAckSocketReceiver({
          appToken: transport.appToken,
          clientOptions: webClientOptions(apiUrl, webApiLogger),
          logger: parts.logger.child({ component: 'slack-socket' }),
        });
  const app = new App({
    receiver,
    token: botToken,
    botUserId: identity.user_id,
    ...(identity.bot_id && { botId: identity.bot_id }),
    tokenVerificationEnabled: false,
    clientOptions: webClientOptions(apiUrl, logger),
    ignoreSelf: true,
    // No in-memory conversation state: everything lives in the database.
    convoStore: false,
    logger,
  });
  // Its own client with a timeout well under Slack's 3 s, so a click's acknowledgement is never late.
  const modalClient = new WebClient(botToken, { ...webClientOptions(apiUrl, webApiLogger), timeout: 2_000 });
  registerListeners(app, {
    intake: parts.intake,
    access: parts.access,
    logger: parts.logger,
    trackedRuns: store.trackedRuns,
    triggers: store.triggers,
    anchors: store.anchors,
    personKeys: store.personKeys,
    audit: store.audit,
    ...(parts.approvals && { approvals: parts.approvals }),
    settings: store.settings,
    admins: config.admins,
    keyPageUrl: config.keyPageUrl,
    followups: config.followups,
    unfurlDomains: config.unfurlDomains,
    routeChoices: routeChoices(config.channels),
    startTriggers: { routed: new Set(Object.keys(config.channels)), triggers: config.triggers ?? {} },
    now: parts.now,
    botUserId: identity.user_id,
    botId: identity.bot_id,
    openModal: (triggerId, view) => modalClient.views.open({ trigger_id: triggerId, view }),
  });
  return {
    app,
    receiver: receiver instanceof HTTPReceiver ? receiver : undefined,
    client: new SlackWebApi({ token: botToken, apiUrl, logger: callsLogger }),
    sessionClient: new SlackWebApi({ token: botToken, apiUrl, logger: callsLogger, warnings: false }),
    botUserId: identity.user_id,
    botId: identity.bot_id,
    teamId: identity.team_id,
    scrub,
  };
}
