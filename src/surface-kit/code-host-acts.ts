/**
 * What a code host's webhook handler (GitHub, GitLab) decides the same way once an act is parsed: whether
 * it needs the run its issue or pull/merge request has, whether a failed check or pipeline still has a
 * place under the run's cap, and a merge or close told once in every place of the run.
 */
import type { IntakeService } from '../core/intake/intake-service.js';
import { noticeOf } from '../core/outbox/notice-parts.js';
import { receivedKey, type NoticePart, type OutboxMessage } from '../core/ports/messages.js';
import type { NewOutboxRow, Store } from '../core/ports/store.js';
import type { TrackedRun } from '../core/ports/store-records.js';
import type { TriggerInput } from '../core/ports/triggers.js';
import { oneLine } from '../core/quote.js';
import type { WebhookOutcome } from '../http/signed-webhook.js';

type Deps = { store: Pick<Store, 'eventKeys' | 'anchors' | 'trackedRuns'>; now: () => number };

/** An act that starts or steers: `needsRun`, only when its place has a run; `ifLinked`, what it is when it has one. */
export interface CodeHostTrigger {
  input: TriggerInput;
  needsRun: boolean;
  ifLinked?: TriggerInput;
}

/** The per-run cap of failures told to a run (`github.ci_failures`, `gitlab.pipeline_failures`), when the act is one. */
export interface FailureCap {
  /** The act's own event key: a redelivery under a new delivery id must not take a second place. */
  seenKey: string;
  /** The event key of the run's `n`th place. */
  placeKey: (runId: string, n: number) => string;
  max: number;
  /** What was told, in the reason it is refused: `failed checks`. */
  what: string;
  /** The reason a redelivered failure is a duplicate: `check run seen before`. */
  seenReason: string;
}

/**
 * The input to submit, or why nothing is: a handle comment on an issue that has a run steers it; an
 * act that needs a run is ignored without one; a start while the place's run is active is ignored; a
 * failure over the cap is ignored.
 */
export async function gateOnRun(act: CodeHostTrigger, deps: Deps, cap?: FailureCap): Promise<{ input: TriggerInput } | WebhookOutcome> {
  let { input } = act;
  // The worker would steer too, after a start message owed for nothing.
  if (act.ifLinked && (await deps.store.anchors.currentRun(input.anchor))) input = act.ifLinked;
  if (act.needsRun || (input.kind === 'start' && input.payload.unlessActive)) {
    const runId = await deps.store.anchors.currentRun(input.anchor);
    const run = runId ? await deps.store.trackedRuns.get(runId) : undefined;
    if (act.needsRun && !run) return { outcome: 'ignored', reason: `${input.anchor} has no run` };
    if (input.kind === 'start' && run?.tracked) return { outcome: 'ignored', reason: `run ${run.runId} is still active on ${input.anchor}` };
    if (cap && run) {
      if (!(await deps.store.eventKeys.remember(cap.seenKey, deps.now()))) return { outcome: 'duplicate', reason: cap.seenReason };
      if (!(await takePlace(run.runId, cap, deps))) return { outcome: 'ignored', reason: `run ${run.runId} was told ${cap.max} ${cap.what} already` };
    }
  }
  return { input };
}

/** One of the run's places under the cap, taken in the store (each an event key inserted once). */
async function takePlace(runId: string, cap: FailureCap, deps: Deps): Promise<boolean> {
  for (let n = 1; n <= cap.max; n++) {
    if (await deps.store.eventKeys.remember(cap.placeKey(runId, n), deps.now())) return true;
  }
  return false;
}

/** A pull or merge request merged, or closed without merging, as the verified payload names it. */
export interface ClosedAct {
  place: string;
  name: string;
  merged: boolean;
  url: string;
  by: string;
}

/**
 * A merge or a close: one notice in every place of the run of `act.place` (`noun`: `pull request`),
 * each row keyed by `<surface>:merged|closed:<place>:<run>:<destination>` so it is told once however
 * often it is delivered; the delivery is remembered. Ignored when the place has no run.
 */
export async function tellClosed(
  surface: string,
  noun: string,
  act: ClosedAct,
  rememberKey: string | undefined,
  deps: Deps & { intake: Pick<IntakeService, 'owe'> },
): Promise<WebhookOutcome> {
  const runId = await deps.store.anchors.currentRun(act.place);
  const run = runId ? await deps.store.trackedRuns.get(runId) : undefined;
  if (!run) return { outcome: 'ignored', reason: `${act.place} has no run` };
  // By the host's name for it, linked to its page (`url` of the verified payload).
  const parts = [`The ${noun} `, { url: act.url, label: act.name }, ` was ${act.merged ? 'merged' : 'closed without merging'} by ${oneLine(act.by)}.`];
  const added = await deps.intake.owe(toldInEveryPlace(run, `${surface}:${act.merged ? 'merged' : 'closed'}:${act.place}`, parts));
  if (rememberKey !== undefined) await deps.store.eventKeys.remember(rememberKey, deps.now());
  return added > 0 ? { outcome: 'stored' } : { outcome: 'duplicate', reason: 'told before' };
}

/** The rows telling `parts` in each of `run`'s places, threaded under the run's start message where there is one. */
function toldInEveryPlace(run: Pick<TrackedRun, 'runId' | 'triggerKey' | 'destinations'>, what: string, parts: readonly NoticePart[]): NewOutboxRow[] {
  return run.destinations.map((destination) => ({
    key: `${what}:${run.runId}:${destination}`,
    destination,
    kind: 'notice',
    payload: noticeOf(parts, { receivedKey: receivedKey(run.triggerKey ?? run.runId, destination) }) satisfies OutboxMessage,
  }));
}
