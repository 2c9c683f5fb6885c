import type { IntakeService } from '../core/intake/intake-service.js';
import type { OutboxMessage } from '../core/ports/messages.js';
import type { NewOutboxRow, Store } from '../core/ports/store.js';
import type { TriggerInput } from '../core/ports/triggers.js';
import type { WebhookOutcome } from '../http/signed-webhook.js';
import { gateOnRun, tellClosed } from '../surface-kit/code-host-acts.js';
import type { GitlabTriggerConfig, Self } from './acts.js';
import { actOf } from './normalise.js';
import type { GitlabDelivery } from './webhook-endpoint.js';

/** Event key of a delivery (`Idempotency-Key`: the same when GitLab retries it). */
export const deliveryKey = (deliveryId: string) => `gitlab:delivery:${deliveryId}`;

/** Event key of the `n`th failed pipeline told to a run (`gitlab.pipeline_failures` caps n). */
export const pipelineFailureKey = (runId: string, n: number) => `gitlab:pipeline-failures:${runId}:${n}`;

export interface GitlabWebhookDeps {
  config: GitlabTriggerConfig;
  /** Our token's user (`GET /user` at start): its notes never count. */
  self: Self;
  intake: Pick<IntakeService, 'submit' | 'owe'>;
  store: Pick<Store, 'eventKeys' | 'anchors' | 'trackedRuns'>;
  now: () => number;
  /** `intake.dedupe_retention`: an act older than this is taken for a replay (its key may be forgotten). */
  retentionMs: number;
}

/**
 * `eyes` on the note that steers or stops a run, owed on receipt: with its trigger, or once its
 * requester is cleared (`access.ts`). A start's `eyes` comes with its "received" row.
 */
export function seenRows(input: Pick<TriggerInput, 'kind' | 'key' | 'anchor' | 'payload'>): NewOutboxRow[] {
  if (input.kind === 'start') return [];
  const reference = (input.payload as { reference?: { note?: number } }).reference;
  if (reference?.note === undefined) return [];
  return [{ key: `seen:${input.key}`, destination: input.anchor, kind: 'seen', payload: { kind: 'seen', reference } satisfies OutboxMessage }];
}

/**
 * What a verified, parsed delivery means, stored before GitLab gets its answer. Dedupe is on the
 * delivery (`Idempotency-Key`) in the store, then on the act's own key (a note's id; a label change's
 * issue, label and time), so one act makes one request however often it is delivered. An act older
 * than the retention of those keys is a replay and ignored. What starts or steers nothing stores nothing.
 */
export async function handleGitlabWebhook(delivery: GitlabDelivery, deps: GitlabWebhookDeps): Promise<WebhookOutcome> {
  const { deliveryId } = delivery;
  if (deliveryId !== undefined && (await deps.store.eventKeys.has(deliveryKey(deliveryId)))) return { outcome: 'duplicate', reason: 'delivery seen before' };
  const act = actOf(delivery.event, deps.config, deps.self);
  if (act.kind === 'ignored') return { outcome: 'ignored', reason: act.reason };
  if (act.kind === 'closed') return tellClosed('gitlab', 'merge request', act, deliveryId === undefined ? undefined : deliveryKey(deliveryId), deps);
  const at = act.at ? Date.parse(act.at) : Number.NaN;
  if (Number.isFinite(at) && at < deps.now() - deps.retentionMs) return { outcome: 'ignored', reason: 'the act is older than intake.dedupe_retention' };

  const cap = act.pipelineFailure
    ? {
        seenKey: `gitlab:pipeline-seen:${act.input.key}`,
        placeKey: pipelineFailureKey,
        max: deps.config.pipelineFailures,
        what: 'failed pipelines',
        seenReason: 'pipeline seen before',
      }
    : undefined;
  const gated = await gateOnRun(act, deps, cap);
  if ('outcome' in gated) return gated;
  const { input } = gated;
  // A requester still to be cleared gets no `eyes` yet: the worker owes it once GitLab says they may act.
  const alsoOwed = input.payload.checkRequester ? [] : seenRows(input);
  const { accepted } = await deps.intake.submit(input, { rememberKeys: deliveryId === undefined ? [] : [deliveryKey(deliveryId)], alsoOwed });
  return accepted ? { outcome: 'stored' } : { outcome: 'duplicate', reason: 'act seen before' };
}
