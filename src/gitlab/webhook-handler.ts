import type { IntakeService } from '../core/intake/intake-service.js';
import type { OutboxMessage } from '../core/ports/messages.js';
import type { NewOutboxRow, Store } from '../core/ports/store.js';
import type { TriggerInput } from '../core/ports/triggers.js';
import { oneLine } from '../core/quote.js';
import type { WebhookOutcome } from '../http/signed-webhook.js';
import { toldInEveryPlace } from '../surface-kit/told-in-every-place.js';
import type { GitlabAct, GitlabTriggerConfig, Self } from './acts.js';
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
  if (act.kind === 'closed') return closed(act, deliveryId, deps);
  const at = act.at ? Date.parse(act.at) : Number.NaN;
  if (Number.isFinite(at) && at < deps.now() - deps.retentionMs) return { outcome: 'ignored', reason: 'the act is older than intake.dedupe_retention' };

  let { input } = act;
  // A handle note on an issue that has a run steers it (the worker would too, after a start note owed for nothing).
  if (act.ifLinked && (await deps.store.anchors.currentRun(input.anchor))) input = act.ifLinked;
  if (act.needsRun || (input.kind === 'start' && input.payload.unlessActive)) {
    const runId = await deps.store.anchors.currentRun(input.anchor);
    const run = runId ? await deps.store.trackedRuns.get(runId) : undefined;
    if (act.needsRun && !run) return { outcome: 'ignored', reason: `${input.anchor} has no run` };
    if (input.kind === 'start' && run?.tracked) return { outcome: 'ignored', reason: `run ${run.runId} is still active on ${input.anchor}` };
    if (act.pipelineFailure && run) {
      // A redelivered failure under a new delivery id must not take a second place under the cap.
      if (!(await deps.store.eventKeys.remember(`gitlab:pipeline-seen:${input.key}`, deps.now())))
        return { outcome: 'duplicate', reason: 'pipeline seen before' };
      if (!(await takePipelinePlace(run.runId, deps)))
        return { outcome: 'ignored', reason: `run ${run.runId} was told ${deps.config.pipelineFailures} failed pipelines already` };
    }
  }
  // A requester still to be cleared gets no `eyes` yet: the worker owes it once GitLab says they may act.
  const alsoOwed = input.payload.checkRequester ? [] : seenRows(input);
  const { accepted } = await deps.intake.submit(input, { rememberKeys: deliveryId === undefined ? [] : [deliveryKey(deliveryId)], alsoOwed });
  return accepted ? { outcome: 'stored' } : { outcome: 'duplicate', reason: 'act seen before' };
}

/** One of the run's `gitlab.pipeline_failures` places, taken in the store (each an event key inserted once). */
async function takePipelinePlace(runId: string, deps: GitlabWebhookDeps): Promise<boolean> {
  for (let n = 1; n <= deps.config.pipelineFailures; n++) {
    if (await deps.store.eventKeys.remember(pipelineFailureKey(runId, n), deps.now())) return true;
  }
  return false;
}

/** A merge or a close without merge: one notice in every place of the merge request's run, keyed so it is told once. */
async function closed(act: Extract<GitlabAct, { kind: 'closed' }>, deliveryId: string | undefined, deps: GitlabWebhookDeps): Promise<WebhookOutcome> {
  const runId = await deps.store.anchors.currentRun(act.place);
  const run = runId ? await deps.store.trackedRuns.get(runId) : undefined;
  if (!run) return { outcome: 'ignored', reason: `${act.place} has no run` };
  // The merge request by GitLab's name for it, linked to its page (`url` of the verified payload).
  const parts = ['The merge request ', { url: act.url, label: act.name }, ` was ${act.merged ? 'merged' : 'closed without merging'} by ${oneLine(act.by)}.`];
  const rows = toldInEveryPlace(run, `gitlab:${act.merged ? 'merged' : 'closed'}:${act.place}`, parts);
  const added = await deps.intake.owe(rows);
  if (deliveryId !== undefined) await deps.store.eventKeys.remember(deliveryKey(deliveryId), deps.now());
  return added > 0 ? { outcome: 'stored' } : { outcome: 'duplicate', reason: 'told before' };
}
