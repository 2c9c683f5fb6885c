/**
 * Calls to the run API under the key chosen for a request: a success records that the
 * person's key was used; a refusal of a person's key (401/403) becomes a `KeyRefusedError`, which the
 * worker reports to that person and does not retry (another attempt with the same key gets the same
 * answer). A refusal of the service key stays an ordinary run-API error.
 */
import { AgentApiError, type AgentRuns } from '../ports/agent-runs.js';
import type { Logger } from '../ports/logger.js';
import type { KeyChoice, RunKeys } from '../ports/people.js';

/** What was attempted under the key, for the words people get. */
export type KeyedCall = 'start' | 'followup' | 'cancel';

/** The run API refused a person's own key. Carries no key: only whose it was and the status. */
export class KeyRefusedError extends Error {
  override readonly name = 'KeyRefusedError';
  constructor(
    readonly personId: string,
    readonly status: number,
    readonly asked: KeyedCall,
  ) {
    super(`the run API refused the personal API key of ${personId} (${status})`);
  }
}

/** True for the answers that mean "this key may not do this": 401 and 403. */
export function isKeyRefusal(error: unknown): error is AgentApiError {
  return error instanceof AgentApiError && (error.kind === 'authentication' || error.kind === 'permission');
}

/** Runs `call` with the chosen client; see the file comment for what a success and a refusal do. */
export async function callWithKey<T>(
  keys: RunKeys,
  choice: Extract<KeyChoice, { kind: 'use' }>,
  asked: KeyedCall,
  logger: Logger,
  call: (runs: AgentRuns) => Promise<T>,
): Promise<T> {
  let result: T;
  try {
    result = await call(choice.runs);
  } catch (error) {
    if (choice.personalKeyOwner !== undefined && isKeyRefusal(error)) throw new KeyRefusedError(choice.personalKeyOwner, error.status, asked);
    throw error;
  }
  if (choice.personalKeyOwner !== undefined) {
    // "Last used" is for people's information: failing to record it must not fail the request.
    await keys
      .used(choice.personalKeyOwner)
      .catch((error: unknown) => logger.warn({ err: error, personalKeyOwner: choice.personalKeyOwner }, 'could not record the use of a personal key'));
  }
  return result;
}
