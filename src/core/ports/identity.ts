/**
 * Who a request belongs to: the person behind a requester, so a run can use that person's
 * own API key. A person is a chat user id; a user of a surface without people of its own is the same person when linked (on the
 * console, or by the same verified email).
 */
import type { Requester } from './triggers.js';

/** Finds the person behind a requester. Called from the intake worker, never from a webhook handler. */
export interface PersonIdentity {
  /**
   * The person (their person id) who asked, or undefined when nobody is known (a schedule, the CLI, a
   * user linked to nobody). Never throws: a failed lookup is "no person" (the service key).
   */
  personFor(requester: Requester | undefined): Promise<string | undefined>;
}

/** Knows nobody: every run uses the service key (no surface knows people, or in tests). */
export const nobody: PersonIdentity = { personFor: () => Promise.resolve(undefined) };
