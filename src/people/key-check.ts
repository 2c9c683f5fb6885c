/**
 * Checking a personal API key before it is stored: one cheap authenticated call (the
 * newest run, `GET /agent/runs?limit=1`) made with that key.
 */
import { AgentApiError, type AgentRuns } from '../core/ports/agent-runs.js';

/** `accepted`: the run API answered; `refused`: it said 401/403 to the key; `unavailable`: it could not say. */
export type KeyCheck = 'accepted' | 'refused' | 'unavailable';

/** A run API client under one key, closed after use. */
export type RunsForKey = (apiKey: string) => { runs: Pick<AgentRuns, 'listRuns'>; close(): Promise<void> };

/** Makes the check with a client under `apiKey`; never retries a refusal, never keeps the key. */
export async function checkKey(runsFor: RunsForKey, apiKey: string): Promise<KeyCheck> {
  const client = runsFor(apiKey);
  try {
    await client.runs.listRuns({ limit: 1 });
    return 'accepted';
  } catch (error) {
    if (error instanceof AgentApiError && (error.kind === 'authentication' || error.kind === 'permission')) return 'refused';
    return 'unavailable';
  } finally {
    await client.close();
  }
}
