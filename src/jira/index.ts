import type { IntakeService } from '../core/intake/intake-service.js';
import type { IssueLinker } from '../core/ports/issue-links.js';
import type { PromptEnricher, RequesterCheck } from '../core/ports/intake.js';
import type { Logger } from '../core/ports/logger.js';
import type { Notifier } from '../core/ports/notifier.js';
import type { Store } from '../core/ports/store.js';
import { StartupError } from '../core/startup-error.js';
import type { Endpoint } from '../http/server.js';
import type { DescribePeople } from '../surface-kit/people-in-words.js';
import { JiraAccess } from './access.js';
import { restJiraApi, type JiraApi } from './jira-api.js';
import { JiraApiError } from './jira-errors.js';
import { JiraIssueLinker } from './issue-linker.js';
import { JiraNotifier } from './jira-notifier.js';
import type { JiraTriggerConfig } from './normalise.js';
import { JiraPromptEnricher, type CommentLimits } from './prompt-context.js';
import { JiraTransitions, type JiraStates } from './transitions.js';
import { jiraWebhookEndpoint } from './webhook-endpoint.js';
import { handleJiraWebhook } from './webhook-handler.js';

export interface JiraSettings extends Omit<JiraTriggerConfig, 'siteUrl'> {
  /** `jira.allowed_users`: account ids that may start, steer and stop runs besides the people who may edit the issue. */
  allowedUsers: readonly string[];
  /** The site, e.g. `https://acme.atlassian.net`. */
  baseUrl: string;
  email: string;
  apiToken: string;
  webhookSecret: string;
  states: JiraStates;
  /** How the people a message names are written in a comment (`PersonIds.describe`). */
  people: DescribePeople;
  /** `jira.context`: how many earlier comments a start or follow-up carries. Default 20 / 8,000 characters. */
  context?: CommentLimits;
}

/** What the Jira integration plugs into the service. */
export interface JiraIntegration {
  route: Endpoint;
  notifier: Notifier;
  enricher: PromptEnricher;
  /** Who may act on an issue: asked by the intake worker before a Jira trigger does anything. */
  requesterCheck: RequesterCheck;
  api: JiraApi;
  /** The account the bridge acts as (`/myself`): its comments never count. */
  accountId: string;
  /** Finds the issue a chat request names (a chat's `link_jira_issues`, such as `slack.link_jira_issues`). */
  issueLinker: IssueLinker;
  close(): Promise<void>;
}

/**
 * Builds the Jira integration: checks the API token against Jira once and learns our own
 * `accountId` (`/myself`; a refused token stops the start with what to do), and returns the webhook
 * endpoint, the notifier and the prompt context.
 */
export async function startJira(settings: JiraSettings, intake: IntakeService, store: Store, logger: Logger, now: () => number): Promise<JiraIntegration> {
  const api = restJiraApi({ baseUrl: settings.baseUrl, email: settings.email, apiToken: settings.apiToken, now });
  let me: { accountId: string; displayName: string };
  try {
    me = await api.myself();
  } catch (error) {
    await api.close();
    if (error instanceof JiraApiError && (error.code === 'unauthorized' || error.code === 'forbidden')) {
      throw new StartupError(
        'Jira refused JIRA_EMAIL and JIRA_API_TOKEN at start: create an API token at id.atlassian.com → Security → API tokens, signed in as the account JIRA_EMAIL names, and set JIRA_API_TOKEN',
      );
    }
    const code = error instanceof JiraApiError ? error.code : 'connection failed';
    throw new StartupError(`could not reach Jira at start (${code}): check JIRA_BASE_URL and the network, then start again`);
  }
  const config: JiraTriggerConfig = { ...settings, siteUrl: settings.baseUrl };
  const route = jiraWebhookEndpoint({
    secret: settings.webhookSecret,
    logger,
    handle: (webhook, deliveryId) => handleJiraWebhook(webhook, deliveryId, { config, accountId: me.accountId, intake, store, now, logger }),
  });
  const transitions = new JiraTransitions({
    api,
    states: settings.states,
    done: async (runId, move) => (await store.trackedRuns.get(runId))?.workflowMoves.includes(move) ?? false,
    remember: async (runId, move) => {
      await store.trackedRuns.recordWorkflowMove(runId, move, now());
    },
    logger,
  });
  logger.info({ as: me.displayName, labels: Object.keys(settings.labels), projects: settings.projects }, 'Jira is on: POST /jira/webhook');
  return {
    route,
    api,
    requesterCheck: new JiraAccess({ api, allowedUsers: settings.allowedUsers, now, logger }),
    accountId: me.accountId,
    notifier: new JiraNotifier({ api, handle: settings.handle, people: settings.people, transitions, logger }),
    enricher: new JiraPromptEnricher({
      api,
      accountId: me.accountId,
      followups: settings.followups,
      handle: settings.handle,
      ...(settings.context && { context: settings.context }),
    }),
    issueLinker: new JiraIssueLinker({
      api,
      accountId: me.accountId,
      siteUrl: settings.baseUrl,
      projects: settings.projects,
      ...(settings.context && { context: settings.context }),
    }),
    close: () => api.close(),
  };
}
