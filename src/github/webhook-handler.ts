import type { IntakeService } from '../core/intake/intake-service.js';
import type { Logger } from '../core/ports/logger.js';
import type { Store } from '../core/ports/store.js';
import { oneLine } from '../core/quote.js';
import type { WebhookOutcome } from '../http/signed-webhook.js';
import { toldInEveryPlace } from '../surface-kit/told-in-every-place.js';
import { actOf, type GithubAct, type GithubTriggerConfig } from './normalise.js';
import type { GithubEvent } from './parse-webhook.js';
import { seenRows } from './receipt.js';

/** Event key of a delivery (`X-GitHub-Delivery`: the same GUID when GitHub redelivers it). */
export const deliveryKey = (deliveryId: string) => `github:delivery:${deliveryId}`;

/** Event key of the `n`th failed check told to a run (`github.ci_failures` caps n). */
export const checkFailureKey = (runId: string, n: number) => `github:check-failures:${runId}:${n}`;

/** The watermark of an issue's label changes (`EventKeyRepository.advance`): the latest GitHub time seen. */
export const labelWatermarkKey = (place: string) => `github:label-changed:${place}`;

export interface GithubWebhookDeps {
  config: GithubTriggerConfig;
  intake: Pick<IntakeService, 'submit' | 'owe'>;
  store: Pick<Store, 'eventKeys' | 'anchors' | 'trackedRuns'>;
  now: () => number;
  /** `intake.dedupe_retention`: how long the keys of acts are kept, so how old an act may be and still be told from a replay. */
  retentionMs: number;
  logger: Logger;
}

/**
 * What a verified, parsed delivery means, stored before GitHub gets its answer (docs/architecture.md
 * §8). Dedupe is on the delivery id in the store, then on the act's own key (a comment's, a review's, a
 * check run's id; a label change's issue, label and time), so one act makes one request however often
 * it is delivered, under whatever delivery id. A signed delivery captured and sent again later is
 * still one act: older than the retention of those keys, or a label change older than the last one
 * seen on its issue, it is ignored. What starts or steers nothing — a stranger, a bot, a repository
 * without a route, a pull request without a run — stores nothing but that label watermark.
 */
export async function handleGithubWebhook(delivery: GithubEvent, deliveryId: string, deps: GithubWebhookDeps): Promise<WebhookOutcome> {
  if (await deps.store.eventKeys.has(deliveryKey(deliveryId))) return { outcome: 'duplicate', reason: 'delivery seen before' };
  const act = actOf(delivery, deps.config);
  if (act.kind === 'ignored') return { outcome: 'ignored', reason: act.reason };
  if (act.kind === 'closed') return closed(act, deliveryId, deps);
  const replay = await replayed(act, deps);
  if (replay) return { outcome: 'ignored', reason: replay };

  let { input } = act;
  // An @agent comment on an issue that has a run steers it (the worker would too, after a start comment owed for nothing).
  if (act.ifLinked && (await deps.store.anchors.currentRun(input.anchor))) input = act.ifLinked;
  if (act.needsRun || (input.kind === 'start' && input.payload.unlessActive)) {
    const runId = await deps.store.anchors.currentRun(input.anchor);
    const run = runId ? await deps.store.trackedRuns.get(runId) : undefined;
    if (act.needsRun && !run) return { outcome: 'ignored', reason: `${input.anchor} has no run` };
    if (input.kind === 'start' && run?.tracked) return { outcome: 'ignored', reason: `run ${run.runId} is still active on ${input.anchor}` };
    if (act.checkFailure && run) {
      // A redelivered failure under a new delivery id must not take a second place under the cap.
      if (!(await deps.store.eventKeys.remember(`github:check-seen:${input.key}`, deps.now())))
        return { outcome: 'duplicate', reason: 'check run seen before' };
      if (!(await takeCheckPlace(run.runId, deps)))
        return { outcome: 'ignored', reason: `run ${run.runId} was told ${deps.config.ciFailures} failed checks already` };
    }
  }
  // A requester still to be cleared gets no 👀 yet: the worker owes it once GitHub says they may act.
  const alsoOwed = input.payload.checkRequester ? [] : seenRows(input);
  const { accepted } = await deps.intake.submit(input, { rememberKeys: [deliveryKey(deliveryId)], alsoOwed });
  return accepted ? { outcome: 'stored' } : { outcome: 'duplicate', reason: 'act seen before' };
}

/**
 * Why an act is a replay, if it is: older than the keys of acts are kept (its own may be forgotten), or
 * a label change older than the last one seen on its issue (whose watermark this raises otherwise).
 */
async function replayed(act: Extract<GithubAct, { kind: 'trigger' }>, deps: GithubWebhookDeps): Promise<string | undefined> {
  const at = act.at === undefined ? Number.NaN : Date.parse(act.at);
  if (!Number.isFinite(at)) return act.labelChangeOf ? 'a label change without a time' : undefined;
  if (at < deps.now() - deps.retentionMs) return `the act is older than intake.dedupe_retention (${new Date(at).toISOString()})`;
  if (act.labelChangeOf && !(await deps.store.eventKeys.advance(labelWatermarkKey(act.labelChangeOf), at))) {
    return `older than the last label change seen on ${act.labelChangeOf}`;
  }
  return undefined;
}

/** One of the run's `github.ci_failures` places, taken in the store (each an event key inserted once). */
async function takeCheckPlace(runId: string, deps: GithubWebhookDeps): Promise<boolean> {
  for (let n = 1; n <= deps.config.ciFailures; n++) {
    if (await deps.store.eventKeys.remember(checkFailureKey(runId, n), deps.now())) return true;
  }
  return false;
}

/** A merge or a close without merge: one notice in every place of the pull request's run, keyed so it is told once. */
async function closed(act: Extract<ReturnType<typeof actOf>, { kind: 'closed' }>, deliveryId: string, deps: GithubWebhookDeps): Promise<WebhookOutcome> {
  const runId = await deps.store.anchors.currentRun(act.place);
  const run = runId ? await deps.store.trackedRuns.get(runId) : undefined;
  if (!run) return { outcome: 'ignored', reason: `${act.place} has no run` };
  // The pull request by GitHub's name for it, linked to its page (`html_url` of the verified payload).
  const parts = ['The pull request ', { url: act.url, label: act.name }, ` was ${act.merged ? 'merged' : 'closed without merging'} by ${oneLine(act.by)}.`];
  const rows = toldInEveryPlace(run, `github:${act.merged ? 'merged' : 'closed'}:${act.place}`, parts);
  const added = await deps.intake.owe(rows);
  await deps.store.eventKeys.remember(deliveryKey(deliveryId), deps.now());
  return added > 0 ? { outcome: 'stored' } : { outcome: 'duplicate', reason: 'told before' };
}
