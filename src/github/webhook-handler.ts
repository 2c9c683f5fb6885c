import type { IntakeService } from '../core/intake/intake-service.js';
import type { Logger } from '../core/ports/logger.js';
import type { Store } from '../core/ports/store.js';
import type { WebhookOutcome } from '../http/signed-webhook.js';
import { gateOnRun, tellClosed } from '../surface-kit/code-host-acts.js';
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
  if (act.kind === 'closed') return tellClosed('github', 'pull request', act, deliveryKey(deliveryId), deps);
  const replay = await replayed(act, deps);
  if (replay) return { outcome: 'ignored', reason: replay };

  const cap = act.checkFailure
    ? {
        seenKey: `github:check-seen:${act.input.key}`,
        placeKey: checkFailureKey,
        max: deps.config.ciFailures,
        what: 'failed checks',
        seenReason: 'check run seen before',
      }
    : undefined;
  const gated = await gateOnRun(act, deps, cap);
  if ('outcome' in gated) return gated;
  const { input } = gated;
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
