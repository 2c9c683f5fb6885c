/**
 * The GitHub App integration (docs/github.md): the webhook endpoint, the notifier of GitHub
 * places and the issue context of a request, over one REST client acting as the App. Octokit is
 * imported lazily: it is unused when GitHub is off.
 */
import type { IntakeService } from '../core/intake/intake-service.js';
import type { PromptEnricher, RequesterCheck } from '../core/ports/intake.js';
import type { Logger } from '../core/ports/logger.js';
import type { Notifier } from '../core/ports/notifier.js';
import type { Store } from '../core/ports/store.js';
import type { Endpoint } from '../http/server.js';
import type { DescribePeople } from '../surface-kit/people-in-words.js';
import type { GithubApi } from './github-api.js';
import { GithubNotifier } from './github-notifier.js';
import type { GithubTriggerConfig } from './acts.js';
import { GithubPromptEnricher } from './prompt-context.js';
import { githubWebhookEndpoint } from './webhook-endpoint.js';
import { handleGithubWebhook } from './webhook-handler.js';
import { githubWriteAccess } from './write-access.js';

export interface GithubSettings extends GithubTriggerConfig {
  appId: string;
  privateKey: string;
  webhookSecret: string;
  apiUrl: string;
  /** `intake.dedupe_retention`: an act older than this is taken for a replay (its key may be forgotten). */
  dedupeRetentionMs: number;
  /** How the people a message names are written in a comment (`PersonIds.describe`). */
  people: DescribePeople;
}

/** What the GitHub integration plugs into the service. */
export interface GithubIntegration {
  route: Endpoint;
  notifier: Notifier;
  enricher: PromptEnricher;
  /** Whether a requester the webhook handler could not clear may act (write access), for the intake worker. */
  requesterCheck: RequesterCheck;
  api: GithubApi;
}

/** Builds the GitHub integration; nothing is asked of GitHub until the first delivery or message. */
export async function startGithub(
  settings: GithubSettings,
  intake: IntakeService,
  store: Store,
  logger: Logger,
  now: () => number,
): Promise<GithubIntegration> {
  const { octokitGithubApi } = await import('./github-api.js');
  const api = octokitGithubApi({ appId: settings.appId, privateKey: settings.privateKey, baseUrl: settings.apiUrl });
  const route = githubWebhookEndpoint({
    secret: settings.webhookSecret,
    logger,
    handle: (delivery, deliveryId) => {
      // Verified: the installation it names is the one to answer on that repository with.
      const installation = delivery.payload.installation?.id;
      if (installation !== undefined) api.knowInstallation(delivery.payload.repository.full_name, installation);
      return handleGithubWebhook(delivery, deliveryId, { config: settings, intake, store, now, retentionMs: settings.dedupeRetentionMs, logger });
    },
  });
  logger.info({ app: settings.appId, repos: Object.keys(settings.repos), labels: Object.keys(settings.labels) }, 'GitHub is on: POST /github/webhook');
  return {
    route,
    api,
    notifier: new GithubNotifier({ api, handle: settings.handle, people: settings.people, logger }),
    enricher: new GithubPromptEnricher({ api }),
    requesterCheck: githubWriteAccess({ api, config: settings, now }),
  };
}
