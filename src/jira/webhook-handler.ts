import type { IntakeService } from '../core/intake/intake-service.js';
import type { Logger } from '../core/ports/logger.js';
import type { Store } from '../core/ports/store.js';
import type { TriggerInput } from '../core/ports/triggers.js';
import type { WebhookOutcome } from '../http/signed-webhook.js';
import { commentTrigger, labelTrigger, notAPerson, type JiraTriggerConfig } from './normalise.js';
import type { JiraWebhook } from './parse-webhook.js';

/** Event key of a delivery (Jira's `X-Atlassian-Webhook-Identifier`, the same on its retries). */
export const deliveryKey = (deliveryId: string) => `jira:delivery:${deliveryId}`;

export interface JiraWebhookDeps {
  config: JiraTriggerConfig;
  /** Our account (`/myself`, read once at start): its comments never count. */
  accountId: string;
  intake: Pick<IntakeService, 'submit'>;
  store: Pick<Store, 'eventKeys' | 'anchors' | 'trackedRuns'>;
  now: () => number;
  logger: Logger;
}

/**
 * What a verified, parsed delivery means, stored before Jira gets its 200 (docs/architecture.md §8):
 * dedupe on the delivery id in the database, then on the trigger's own key — (issue, label, change)
 * for labels, the comment id for comments — so a change re-sent under a new delivery id starts
 * nothing. The delivery id is remembered in the trigger's own transaction, or after deciding that
 * the delivery starts nothing; never before, so a crash cannot lose a delivery.
 */
export async function handleJiraWebhook(webhook: JiraWebhook, deliveryId: string | undefined, deps: JiraWebhookDeps): Promise<WebhookOutcome> {
  if (deliveryId && (await deps.store.eventKeys.has(deliveryKey(deliveryId)))) return { outcome: 'duplicate', reason: 'delivery seen before' };
  const done = async (outcome: WebhookOutcome): Promise<WebhookOutcome> => {
    if (deliveryId) await deps.store.eventKeys.remember(deliveryKey(deliveryId), deps.now());
    return outcome;
  };
  const trigger = triggerOf(webhook, deps);
  if (!trigger.input) return done({ outcome: 'ignored', reason: trigger.reason });
  const { input } = trigger;
  if (input.kind === 'start' && input.payload.unlessActive) {
    const active = await activeRun(input.anchor, deps.store);
    if (active) return done({ outcome: 'ignored', reason: `run ${active} is still active on ${input.anchor}` });
  }
  const { accepted } = await deps.intake.submit(input, deliveryId ? { rememberKeys: [deliveryKey(deliveryId)] } : {});
  return accepted ? { outcome: 'stored' } : { outcome: 'duplicate', reason: 'trigger seen before' };
}

function triggerOf(webhook: JiraWebhook, deps: JiraWebhookDeps): { input?: TriggerInput; reason: string } {
  switch (webhook.event) {
    case 'jira:issue_created':
    case 'jira:issue_updated': {
      const input = labelTrigger(webhook, deps.config);
      if (input) return { input, reason: '' };
      const who = notAPerson(webhook.user);
      return { reason: who ? `changed by ${who}, who starts and stops nothing` : 'no trigger label change on a served project' };
    }
    case 'comment_created': {
      if (webhook.comment.author?.accountId === deps.accountId) return { reason: 'our own comment' };
      const who = notAPerson(webhook.comment.author);
      if (who) return { reason: `a comment by ${who}, who starts, steers and stops nothing` };
      const input = commentTrigger(webhook, deps.config, deps.accountId);
      return input ? { input, reason: '' } : { reason: 'comment not addressed to us' };
    }
    case 'comment_updated':
      // Our own start comment is edited at every state: an edit is never a new request.
      return { reason: 'an edited comment starts and steers nothing' };
    default:
      return { reason: `event ${webhook.name} is not handled` };
  }
}

/** The anchor's current run while it is still active. */
async function activeRun(anchor: string, store: Pick<Store, 'anchors' | 'trackedRuns'>): Promise<string | undefined> {
  const runId = await store.anchors.currentRun(anchor);
  const run = runId ? await store.trackedRuns.get(runId) : undefined;
  return run?.tracked ? run.runId : undefined;
}
