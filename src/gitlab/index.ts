/**
 * The GitLab integration (docs/gitlab.md): the webhook endpoint, the notifier of GitLab issues, the
 * issue context of a request and who may ask, over one small typed REST client (`gitlab-api.ts`).
 */
import type { IntakeService } from '../core/intake/intake-service.js';
import type { PromptEnricher, RequesterCheck } from '../core/ports/intake.js';
import type { Logger } from '../core/ports/logger.js';
import type { Notifier } from '../core/ports/notifier.js';
import type { Store } from '../core/ports/store.js';
import { StartupError } from '../core/startup-error.js';
import type { Endpoint } from '../http/server.js';
import type { DescribePeople } from '../surface-kit/people-in-words.js';
import { gitlabMemberAccess } from './access.js';
import type { GitlabTriggerConfig } from './acts.js';
import { fetchGitlabApi, GitlabCallError, type GitlabApi } from './gitlab-api.js';
import { GitlabNotifier } from './gitlab-notifier.js';
import { GitlabPromptEnricher } from './prompt-context.js';
import { gitlabWebhookEndpoint } from './webhook-endpoint.js';
import { handleGitlabWebhook } from './webhook-handler.js';

export interface GitlabSettings extends GitlabTriggerConfig {
  token: string;
  webhookSecret: string;
  url: string;
  /** `intake.dedupe_retention`: an act older than this is taken for a replay. */
  dedupeRetentionMs: number;
  people: DescribePeople;
}

/** What the GitLab integration plugs into the service. */
export interface GitlabIntegration {
  route: Endpoint;
  notifier: Notifier;
  enricher: PromptEnricher;
  requesterCheck: RequesterCheck;
  api: GitlabApi;
}

/**
 * Builds the GitLab integration: learns the token's user once (`GET /user`: its notes never count; a
 * refused token stops the start with what to do), and returns the endpoint, notifier, enricher and check.
 */
export async function startGitlab(
  settings: GitlabSettings,
  intake: IntakeService,
  store: Store,
  logger: Logger,
  now: () => number,
): Promise<GitlabIntegration> {
  const api = fetchGitlabApi({ url: settings.url, token: settings.token });
  let self: { id: number; username: string };
  try {
    self = await api.currentUser();
  } catch (error) {
    const status = error instanceof GitlabCallError ? error.status : undefined;
    if (status === 401 || status === 403) {
      throw new StartupError(
        `GitLab refused GITLAB_TOKEN at start (${status}): create an access token with the api scope (the project’s Settings → Access tokens) and set GITLAB_TOKEN`,
      );
    }
    throw new StartupError(`could not reach GitLab at start (${status ?? 'no answer'}): check GITLAB_URL and the network, then start again`);
  }
  const route = gitlabWebhookEndpoint({
    secret: settings.webhookSecret,
    logger,
    now,
    handle: (delivery) => handleGitlabWebhook(delivery, { config: settings, self, intake, store, now, retentionMs: settings.dedupeRetentionMs }),
  });
  logger.info({ as: self.username, projects: Object.keys(settings.projects), labels: Object.keys(settings.labels) }, 'GitLab is on: POST /gitlab/webhook');
  return {
    route,
    api,
    notifier: new GitlabNotifier({ api, selfId: self.id, handle: settings.handle, people: settings.people, logger }),
    enricher: new GitlabPromptEnricher({ api, selfId: self.id }),
    requesterCheck: gitlabMemberAccess({ api, config: settings, now }),
  };
}
