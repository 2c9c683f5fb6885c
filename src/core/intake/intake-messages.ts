import type { AgentApiError } from '../ports/agent-runs.js';
import { noticeOf } from '../outbox/notice-parts.js';
import { receivedKey, type NoticePart, type OutboxMessage, type RunSnapshot } from '../ports/messages.js';
import { platformOf } from '../ports/notifier.js';
import type { NewOutboxRow, StoredTrigger, TrackedRun } from '../ports/store.js';
import { shownAs, type Requester } from '../ports/triggers.js';
import type { Surfaces } from '../surfaces.js';

/*
 * The messages the intake worker owes people, keyed so that each is owed once per trigger however
 * often the trigger is retried.
 */

/** A one-off note in the trigger's thread or issue. */
export function notice(trigger: StoredTrigger, topic: string, text: string): NewOutboxRow {
  return { key: `notice:${topic}:${trigger.key}`, destination: trigger.anchor, kind: 'notice', payload: { kind: 'notice', text } satisfies OutboxMessage };
}

/** Said once per trigger while retrying, so people know why nothing happens yet. */
export function retryNotice(trigger: StoredTrigger, error: AgentApiError | undefined): NewOutboxRow | undefined {
  if (error?.kind === 'rate_limited')
    return notice(trigger, 'capacity', 'The run API is at capacity right now; I will keep trying and start as soon as it has room.');
  if (error?.kind === 'connection' || error?.kind === 'timeout' || error?.kind === 'server') {
    return notice(trigger, 'unreachable', 'The run API is not answering right now; I will keep retrying for a while.');
  }
  return undefined;
}

/** What people are told when a trigger is given up on: a start fails at every destination it reports to. */
export function failureMessages(trigger: StoredTrigger, reason: string): NewOutboxRow[] {
  if (trigger.kind !== 'start') {
    const what = trigger.kind === 'followup' ? 'Your reply could not be delivered to the run' : 'The run could not be stopped';
    return [notice(trigger, 'failed', `${what}: ${reason}.`)];
  }
  const payload = trigger.payload;
  return payload.destinations.map((destination) => ({
    key: `failed:${trigger.key}:${destination}`,
    destination,
    kind: 'failed',
    payload: { kind: 'failed', title: payload.title, reason, receivedKey: receivedKey(shownAs(trigger), destination) } satisfies OutboxMessage,
  }));
}

/**
 * How a stop the run API took is shown: at every destination of the run an edit of its status
 * message / start comment, never a new message — the CANCELLED announcement that follows is the one
 * new message, and it says who (docs/architecture.md §6). `reference` (the comment that asked) goes with the
 * destination the request came from, where the notifier may react to it.
 */
export function stoppingMessages(trigger: StoredTrigger, run: TrackedRun, requestedBy: string | undefined, reference: unknown): NewOutboxRow[] {
  const snapshot: RunSnapshot = {
    runId: run.runId,
    title: run.title ?? run.runId,
    state: run.state,
    pullRequests: [],
    ...(run.sessionLink !== null && { sessionLink: run.sessionLink }),
  };
  const asked =
    run.destinations.find((destination) => destination === trigger.anchor) ??
    run.destinations.find((destination) => platformOf(destination) === platformOf(trigger.anchor));
  return run.destinations.map((destination) => ({
    key: `stopping:${trigger.key}:${destination}`,
    destination,
    kind: 'stopping',
    payload: {
      kind: 'stopping',
      run: snapshot,
      receivedKey: receivedKey(run.triggerKey ?? run.runId, destination),
      ...(requestedBy !== undefined && { requestedBy }),
      ...(reference !== undefined && destination === asked && { reference }),
    } satisfies OutboxMessage,
  }));
}

/** Whether `destination` is the place `anchor` names: the same, or the bare channel whose thread it is. */
export function isPlaceOf(destination: string, anchor: string): boolean {
  return destination === anchor || anchor.startsWith(`${destination}:`);
}

/** How a person is named at another surface's destination: their own surface's mention may mean nothing there. */
function nameFor(requester: Requester | undefined, destination: string, surfaces: Surfaces): string {
  if (!requester) return 'Someone';
  const foreign = requester.platform !== platformOf(destination);
  const elsewhere = foreign ? surfaces.of(requester.platform)?.nameElsewhere?.(requester.id, requester.name) : undefined;
  return elsewhere ?? requester.name ?? requester.id;
}

/**
 * What the run's other places are told when a follow-up reached it from one of them: that one came,
 * from whom and where — never its text, so nothing said in a private place (a DM, a private channel)
 * is copied into a public one. What it was ("a review") links to it when its edge gave a link
 * (`FollowupPayload.heardAs`). The place it was written in gets the acknowledgement instead.
 */
export function followupHeardElsewhere(trigger: StoredTrigger, run: TrackedRun, requester: Requester | undefined, surfaces: Surfaces): NewOutboxRow[] {
  const where = surfaces.title(trigger.anchor);
  const heard = trigger.kind === 'followup' ? trigger.payload.heardAs : undefined;
  const kind = heard?.what ?? 'a follow-up';
  // The edge took the link from its platform's verified payload: the words that say what came link to it.
  const what: NoticePart = heard?.link ? { url: heard.link, label: kind } : kind;
  return run.destinations
    .filter((destination) => surfaces.isConversation(destination) && !isPlaceOf(destination, trigger.anchor))
    .map((destination) => ({
      key: `followup-heard:${trigger.key}:${destination}`,
      destination,
      kind: 'notice',
      payload: noticeOf([`${nameFor(requester, destination, surfaces)} sent the run `, what, ` from ${where}.`], {
        receivedKey: receivedKey(run.triggerKey ?? run.runId, destination),
      }) satisfies OutboxMessage,
    }));
}
