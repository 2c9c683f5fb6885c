/**
 * Whose API key a request runs under (`people.attribution`). The core asks this port once
 * per start, follow-up or cancel, with the person who asked; the adapter (`people/`) knows the stored
 * personal keys and holds a run API client per key. The core never sees a key, only the client.
 */
import type { AgentRuns } from './agent-runs.js';
import type { Requester } from './triggers.js';

/** The run API to use for one request, and whose key it carries. */
export type KeyChoice =
  /**
   * `personalKeyOwner`: the person whose key it is; undefined = the service's own key. `personId`: the
   * person who asked, when it was looked up (whichever key is used; usage and limits go by it).
   */
  | { kind: 'use'; runs: AgentRuns; personalKeyOwner?: string; personId?: string }
  /**
   * Nothing may run: `people.attribution` is `personal_required` and the requester has no key
   * connected (or cannot be matched to a person who could connect one).
   */
  | { kind: 'refused'; reason: 'no_key'; personId?: string };

/** Picks the key for each request and keeps what people see about their key current. */
export interface RunKeys {
  /** The run API for a request by `requester` (undefined: a schedule or the CLI, which use the service key). */
  choose(requester: Requester | undefined): Promise<KeyChoice>;
  /** The run API under the person's own key (the tracker lists per key); undefined when none is connected. */
  forOwner(personId: string): Promise<AgentRuns | undefined>;
  /** The person's key worked for a call (its "last used" time). */
  used(personId: string): Promise<void>;
  /** The run API refused the person's key (401/403): remembered so they can be told where they look. */
  refused(personId: string, status: number): Promise<void>;
  /** How a person connects a key, in words for a message (the chat's command, the console page). */
  howToConnect(): string;
}

/** Every request under the one service key (`people.attribution: service`, and tests). */
export function serviceKeyOnly(runs: AgentRuns): RunKeys {
  return {
    choose: () => Promise.resolve({ kind: 'use', runs }),
    forOwner: () => Promise.resolve(undefined),
    used: () => Promise.resolve(),
    refused: () => Promise.resolve(),
    howToConnect: () => 'ask the operator to turn on personal keys',
  };
}
