import { explainError } from '../core/explain-error.js';
import { AgentApiClient } from './client.js';

/** How long the probe waits for the run API: readiness must answer quickly and say the truth now. */
export const PROBE_TIMEOUT_MS = 3_000;

/** Whether the run API answers with this key: `check` rejects with a sentence for a person. */
export interface RunApiProbe {
  check(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The run API's readiness probe, used by `/readyz` and `agent-bridge config check`: one list call of
 * one run, no retries, a short timeout. A failure is explained in words (`explainError`), never with
 * the key.
 */
export function runApiProbe(api: { baseUrl: string; apiKey: string }, timeoutMs = PROBE_TIMEOUT_MS): RunApiProbe {
  const client = new AgentApiClient({ baseUrl: api.baseUrl, apiKey: api.apiKey, timeoutMs, retry: { maxRetries: 0 } });
  return {
    check: async () => {
      try {
        await client.listRuns({ limit: 1 });
      } catch (error) {
        throw new Error(explainError(error), { cause: error });
      }
    },
    close: () => client.close(),
  };
}
