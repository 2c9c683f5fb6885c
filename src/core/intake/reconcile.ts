import type { AgentRuns, RunItem } from '../ports/agent-runs.js';
import { referenceLine } from '../ports/triggers.js';

/** Most runs a reconciliation reads before concluding the earlier attempt created nothing. */
const MAX_RUNS_SCANNED = 1_000;

/**
 * Finds the run an earlier attempt of a trigger created, by the reference line it put in the prompt.
 * Lists newest first, filtered by config name (when the route has one) and creation time, so the
 * scan stays short; `createdAfter` must leave room for clock skew between us and the server.
 */
export async function findRunByReference(runs: AgentRuns, triggerKey: string, filter: { name?: string; createdAfter: string }): Promise<RunItem | undefined> {
  const reference = referenceLine(triggerKey);
  let scanned = 0;
  for await (const run of runs.allRuns({ ...(filter.name && { name: filter.name }), created_after: filter.createdAfter, limit: 100 })) {
    if (run.prompt?.includes(reference)) return run;
    if (++scanned >= MAX_RUNS_SCANNED) return undefined;
  }
  return undefined;
}
