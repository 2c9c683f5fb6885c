import type { Logger } from '../core/ports/logger.js';
import type { IntakeService } from '../core/intake/intake-service.js';
import type { Store } from '../core/ports/store.js';
import type { TriggerInput } from '../core/ports/triggers.js';
import type { WebhookOutcome } from '../http/signed-webhook.js';
import { actorRequester, commentTrigger, labelTrigger, type LinearTriggerConfig } from './normalise.js';
import { isCommentWebhook, isSessionWebhook, type LinearWebhook } from './parse-webhook.js';
import { sessionTrigger } from './session-triggers.js';

/** Event-key of a webhook delivery (Linear's `Linear-Delivery` header). */
export const deliveryKey = (deliveryId: string) => `linear:delivery:${deliveryId}`;

export interface LinearWebhookDeps {
  config: LinearTriggerConfig;
  intake: Pick<IntakeService, 'submit'>;
  store: Pick<Store, 'eventKeys' | 'anchors' | 'trackedRuns'>;
  now: () => number;
  logger: Logger;
  /** Whether a comment id is one we created (its webhook must not count as a person's comment). */
  isOwnComment: (commentId: string) => boolean;
  /** Ids of the trigger labels, resolved at start (Linear sends only ids of removed labels). */
  triggerLabelIds?: () => ReadonlySet<string> | undefined;
}

/**
 * What a verified, parsed delivery means, stored before Linear gets its 200 (docs/architecture.md §8): dedupe on
 * the delivery id in the database, then on the trigger's own key — (issue, label, `updatedAt`) for
 * labels, the comment id for comments — so Linear re-sending a change under a new delivery id, hours
 * later, starts nothing. The delivery id is recorded together with its trigger (or, for a delivery
 * that starts nothing, after deciding so), never before: a crash cannot lose a delivery.
 */
export async function handleLinearWebhook(envelope: LinearWebhook, deliveryId: string | undefined, deps: LinearWebhookDeps): Promise<WebhookOutcome> {
  if (deliveryId && (await deps.store.eventKeys.has(deliveryKey(deliveryId)))) return { outcome: 'duplicate', reason: 'delivery seen before' };
  const done = async (outcome: WebhookOutcome): Promise<WebhookOutcome> => {
    if (deliveryId) await deps.store.eventKeys.remember(deliveryKey(deliveryId), deps.now());
    return outcome;
  };

  const trigger = triggerOf(envelope, deliveryId, deps);
  if (!trigger.input) return done({ outcome: 'ignored', reason: trigger.reason });
  const { input } = trigger;
  if (input.kind === 'start' && input.payload.unlessActive) {
    const active = await activeRun(input.anchor, deps.store);
    if (active) return done({ outcome: 'ignored', reason: `run ${active} is still active on ${input.anchor}` });
  }
  // The delivery id is remembered in the trigger's own transaction: one commit per webhook.
  const { accepted } = await deps.intake.submit(input, deliveryId ? { rememberKeys: [deliveryKey(deliveryId)] } : {});
  return accepted ? { outcome: 'stored' } : { outcome: 'duplicate', reason: 'trigger seen before' };
}

function triggerOf(envelope: LinearWebhook, deliveryId: string | undefined, deps: LinearWebhookDeps): { input?: TriggerInput; reason: string } {
  if (envelope.type === 'Issue') {
    if (!actorRequester(envelope.actor)) return { reason: 'changed by no person (an integration, an app or nobody), who starts and stops nothing' };
    const input = labelTrigger(envelope, deps.config, deliveryId ?? '', deps.triggerLabelIds?.());
    return input ? { input, reason: '' } : { reason: 'no trigger label change' };
  }
  if (isCommentWebhook(envelope)) {
    if (deps.isOwnComment(envelope.data.id)) return { reason: 'our own comment' };
    if (envelope.data.botActor !== undefined || (envelope.data.userId ?? envelope.data.user?.id) === undefined)
      return { reason: 'a comment by an app or without a Linear user, who starts, steers and stops nothing' };
    const input = commentTrigger(envelope, deps.config, new Set());
    return input ? { input, reason: '' } : { reason: 'comment not addressed to us' };
  }
  if (isSessionWebhook(envelope)) {
    const input = sessionTrigger(envelope, deps.config);
    return input ? { input, reason: '' } : { reason: `agent session event ${envelope.action.slice(0, 40)} starts or steers nothing` };
  }
  return { reason: `event type ${envelope.type.slice(0, 40)} is not handled` };
}

/** The anchor's current run while it is still active (tracked = not yet in a terminal state). */
async function activeRun(anchor: string, store: Pick<Store, 'anchors' | 'trackedRuns'>): Promise<string | undefined> {
  const runId = await store.anchors.currentRun(anchor);
  const run = runId ? await store.trackedRuns.get(runId) : undefined;
  return run?.tracked ? run.runId : undefined;
}
