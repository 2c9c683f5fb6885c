import type { OutboxMessage } from './messages.js';
import type { NewOutboxRow, StoredTrigger } from './store.js';
import type { StartPayload } from './triggers.js';

/** Who may start, steer and stop runs. The edge supplies it (e.g. a surface's `allowed_users`). */
export interface AccessPolicy {
  /** Undefined when allowed, else the reason to tell the person. */
  deny(trigger: Pick<StoredTrigger, 'source' | 'payload'>): string | undefined;
}

/** The private notice owed to someone who may not do what they asked (one per trigger, by key). */
export function deniedNotice(trigger: Pick<StoredTrigger, 'key' | 'anchor' | 'payload'>, reason: string): NewOutboxRow {
  const requester = trigger.payload.requester?.id;
  const message: OutboxMessage = { kind: 'notice', text: reason, ...(requester && { privateTo: requester }) };
  return { key: `notice:denied:${trigger.key}`, destination: trigger.anchor, kind: 'notice', payload: message };
}

export const allowEveryone: AccessPolicy = { deny: () => undefined };

/**
 * Who may act, where only the platform can say (a repository's permissions): asked by the worker for a
 * trigger whose requester the edge could not clear (`checkRequester`), so the edge stays fast and calls
 * nothing. A surface registers one under its name.
 */
export interface RequesterCheck {
  /**
   * Undefined when the requester may do what the trigger asks, else why not (for the log: the person is
   * not told). Throws when the platform cannot be asked: the worker asks again later.
   */
  refusal(trigger: StoredTrigger): Promise<string | undefined>;
  /** What the edge held back until the requester was cleared, beyond a start's "received" messages (a mark of receipt on the comment). */
  owedOnceCleared?(trigger: StoredTrigger): NewOutboxRow[];
}

/** A request read in the worker (`PromptEnricher.readRequest`). */
export type ReadRequest = { kind: 'request'; prompt: string; title: string } | { kind: 'refused'; reason: string };

/**
 * Adds what the edge knows around a request to its prompt (a chat: the earlier thread messages, the
 * channel, who asked, the permalink). Runs in the background worker, never in a listener, because it
 * calls the platform. Best effort: when it fails, the run starts with the request alone.
 */
export interface PromptEnricher {
  enrich(trigger: StoredTrigger, payload: StartPayload): Promise<string>;
  /**
   * The request a trigger only points at (`StartPayload.requestToRead`): its prompt and title, or why
   * it cannot be one (the message is gone, empty, or an app's), told to the person who asked. Throws
   * when the platform cannot be reached: the worker retries as for a run-API failure.
   */
  readRequest?(trigger: StoredTrigger, payload: StartPayload): Promise<ReadRequest>;
  /**
   * What was said at the trigger's place since the agent's previous turn (the start or the last
   * follow-up) that did not reach it, as a quoted block to send after a follow-up's text; undefined
   * when there is nothing (e.g. every reply is a follow-up already). Best effort, like `enrich`.
   */
  followupContext?(trigger: StoredTrigger, reference: unknown): Promise<string | undefined>;
}
