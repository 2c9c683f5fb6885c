import type { PromptEnricher, RequesterCheck } from '../core/ports/intake.js';
import type { Logger } from '../core/ports/logger.js';
import type { Notifier } from '../core/ports/notifier.js';
import type { IntakeService } from '../core/intake/intake-service.js';
import { StartupError } from '../core/startup-error.js';
import type { Store } from '../core/ports/store.js';
import type { Endpoint } from '../http/server.js';
import type { DescribePeople } from '../surface-kit/people-in-words.js';
import { LinearAccess } from './access.js';
import { sdkLinearApi, type LinearApi } from './linear-api.js';
import { isAuthenticationError, linearErrorType } from './linear-errors.js';
import { LinearNotifier } from './linear-notifier.js';
import { linearWebhookEndpoint } from './webhook-endpoint.js';
import type { LinearTriggerConfig } from './normalise.js';
import { LinearPromptEnricher } from './prompt-context.js';
import { LinearIssueLinker } from './issue-linker.js';
import type { IssueLinker } from '../core/ports/issue-links.js';
import { LinearSessionNotifier } from './session-notifier.js';
import { WorkflowMover, type WorkflowStates } from './workflow-states.js';
import { OwnIds } from './own-ids.js';
import { handleLinearWebhook } from './webhook-handler.js';

export interface LinearSettings extends LinearTriggerConfig {
  /** `linear.allowed_users`: user ids that may start, steer and stop runs though they are guests. */
  allowedUsers: readonly string[];
  /** A personal API key, or an OAuth access token (`LINEAR_ACCESS_TOKEN`). */
  credentials: { apiKey: string } | { accessToken: string };
  webhookSecret: string;
  apiUrl: string;
  states: WorkflowStates;
  /** How the people a message names are written in a comment (`PersonIds.describe`). */
  people: DescribePeople;
  /** `linear.context`: how many earlier comments a start or follow-up carries. Default 20 / 8,000 characters. */
  context?: { messages: number; characters: number };
}

/** What the Linear integration plugs into the service. */
export interface LinearIntegration {
  route: Endpoint;
  /** Comments on issues (`linear:`) and activities of agent sessions (`linear-session:`). */
  notifiers: Notifier[];
  enricher: PromptEnricher;
  /** Who may act (Linear's roles): asked by the intake worker before a Linear trigger does anything. */
  requesterCheck: RequesterCheck;
  api: LinearApi;
  /** Finds the issue a chat request names (a chat's `link_linear_issues`, such as `slack.link_linear_issues`). */
  issueLinker: IssueLinker;
}

/**
 * Builds the Linear integration: checks the key against Linear once (a refused key stops the start
 * with what to do), resolves the trigger labels' ids (removals arrive as ids only), and returns the
 * webhook route, the notifier and the prompt context. The SDK is imported here, lazily: it is large
 * and unused when Linear is off.
 */
export async function startLinear(
  settings: LinearSettings,
  intake: IntakeService,
  store: Store,
  logger: Logger,
  now: () => number,
): Promise<LinearIntegration> {
  const { LinearClient } = await import('@linear/sdk');
  const api = sdkLinearApi(new LinearClient({ ...settings.credentials, apiUrl: settings.apiUrl }));
  const variable = 'apiKey' in settings.credentials ? 'LINEAR_API_KEY' : 'LINEAR_ACCESS_TOKEN';
  let viewer: { id: string; name: string };
  try {
    viewer = await api.viewer();
  } catch (error) {
    if (isAuthenticationError(error)) {
      throw new StartupError(
        `Linear refused ${variable} at start: create a personal API key under Settings → Security & access in Linear (or an OAuth app token) and set ${variable}`,
      );
    }
    throw new StartupError(
      `could not reach Linear at start (${linearErrorType(error) ?? 'connection failed'}): check LINEAR_API_URL and the network, then start again`,
    );
  }

  let triggerLabelIds: ReadonlySet<string> | undefined;
  const names = Object.keys(settings.labels);
  try {
    const found = await api.labels(names);
    triggerLabelIds = new Set(found.map((label) => label.id));
    // A route that also matches by project may name a label nobody uses (yet): that is not worth a warning.
    const missing = names.filter((name) => !settings.projects?.[name] && !found.some((label) => label.name.toLowerCase() === name.toLowerCase()));
    if (missing.length > 0) logger.warn({ labels: missing }, 'linear.labels names labels that do not exist in Linear (yet): issues cannot gain them');
  } catch (error) {
    // Not fatal: starts still work by name; a removal then counts only when no trigger label is left.
    logger.warn({ code: linearErrorType(error) }, 'could not look up the trigger labels in Linear; label removals are matched less precisely');
  }

  const ids = new OwnIds(settings.webhookSecret);
  const isOwnComment = (id: string) => ids.isOwn(id);
  const route = linearWebhookEndpoint({
    secret: settings.webhookSecret,
    logger,
    now,
    handle: (envelope, deliveryId) =>
      handleLinearWebhook(envelope, deliveryId, { config: settings, intake, store, now, logger, isOwnComment, triggerLabelIds: () => triggerLabelIds }),
  });
  const workflow = new WorkflowMover({
    api,
    states: settings.states,
    done: async (runId, move) => (await store.trackedRuns.get(runId))?.workflowMoves.includes(move) ?? false,
    remember: async (runId, move) => {
      await store.trackedRuns.recordWorkflowMove(runId, move, now());
    },
    logger,
  });
  logger.info({ as: viewer.name, labels: names }, 'Linear is on: POST /linear/webhook');
  return {
    route,
    api,
    requesterCheck: new LinearAccess({ api, allowedUsers: settings.allowedUsers, now }),
    notifiers: [
      new LinearNotifier({
        api,
        handle: settings.handle,
        people: settings.people,
        logger,
        workflow,
        ids,
      }),
      new LinearSessionNotifier({ api, ids, workflow }),
    ],
    enricher: new LinearPromptEnricher({
      api,
      isOwnComment,
      followups: settings.followups,
      handle: settings.handle,
      ...(settings.context && { context: settings.context }),
      commentIdFor: (key) => ids.idFor(key),
      runAt: async (anchors) => {
        for (const anchor of anchors) {
          const runId = await store.anchors.currentRun(anchor);
          const run = runId ? await store.trackedRuns.get(runId) : undefined;
          if (run) return { triggerKey: run.triggerKey, anchor: run.anchor };
        }
        return undefined;
      },
    }),
    issueLinker: new LinearIssueLinker({ api, teams: settings.teams, isOwnComment, ...(settings.context && { context: settings.context }) }),
  };
}
