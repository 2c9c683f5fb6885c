/**
 * A run's usage as the run API reports it (`request_usage`): read from the same answers
 * the tracker already gets, never with a request of its own. Missing or malformed figures are left
 * out, so a report without them never clears what was stored.
 */
import type { RunItem } from '../ports/agent-runs.js';
import type { RunUsage } from '../ports/store.js';

/** The figures `item` reports; undefined when it reports none. */
export function reportedUsage(item: RunItem): RunUsage | undefined {
  const reported = item.request_usage;
  if (!reported || typeof reported !== 'object') return undefined;
  const inference = cost(reported.inference_cost);
  const compute = cost(reported.compute_cost);
  if (inference === undefined && compute === undefined) return undefined;
  return { ...(inference !== undefined && { inferenceCost: inference }), ...(compute !== undefined && { computeCost: compute }) };
}

/** Whether `reported` says something `stored` does not already hold. */
export function usageChanged(stored: RunUsage | undefined, reported: RunUsage | undefined): boolean {
  if (!reported) return false;
  return (
    (reported.inferenceCost !== undefined && reported.inferenceCost !== stored?.inferenceCost) ||
    (reported.computeCost !== undefined && reported.computeCost !== stored?.computeCost)
  );
}

function cost(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}
