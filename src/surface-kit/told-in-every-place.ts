/**
 * A notice about a run's code-host place (a pull request or merge request merged or closed) owed once
 * in every place of the run: each row keyed by what happened, the place, the run and the destination,
 * so a redelivered event adds nothing, and threaded under the run's start message where there is one.
 */
import { noticeOf } from '../core/outbox/notice-parts.js';
import { receivedKey, type NoticePart, type OutboxMessage } from '../core/ports/messages.js';
import type { NewOutboxRow } from '../core/ports/store.js';
import type { TrackedRun } from '../core/ports/store-records.js';

/** The rows telling `parts` in each of `run`'s places; `what` names the event in the keys (`github:merged:<place>`). */
export function toldInEveryPlace(run: Pick<TrackedRun, 'runId' | 'triggerKey' | 'destinations'>, what: string, parts: readonly NoticePart[]): NewOutboxRow[] {
  return run.destinations.map((destination) => ({
    key: `${what}:${run.runId}:${destination}`,
    destination,
    kind: 'notice',
    payload: noticeOf(parts, { receivedKey: receivedKey(run.triggerKey ?? run.runId, destination) }) satisfies OutboxMessage,
  }));
}
