import type { Store } from '../core/ports/store.js';
import type { ConsoleDeps } from './deps.js';

/**
 * What someone who is not an admin may see: only their own runs — those they asked for (the starting
 * trigger's requester is their Slack user id) and those created with their personal key (a Linear
 * request of theirs, once their Linear account is linked to them).
 */

/** The console's deps with the runs listing narrowed to `personId`'s runs (the pages stay unaware). */
export function ownRunsOnly(deps: ConsoleDeps, personId: string): ConsoleDeps {
  const operator = deps.store.operator;
  // Object.create keeps every other method and field of the store and its operator repository as they are.
  const narrowed: Store['operator'] = Object.create(operator, {
    listRuns: { value: (query: Parameters<Store['operator']['listRuns']>[0]) => operator.listRuns({ ...query, ownedBy: personId }) },
  }) as Store['operator'];
  const store = Object.create(deps.store, { operator: { value: narrowed } }) as Store;
  return { ...deps, store };
}

/** True when the run is `personId`'s: they asked for it (its starting trigger's requester), or it runs under their key. */
export async function asksFor(deps: ConsoleDeps, runId: string, personId: string): Promise<boolean> {
  const run = await deps.store.trackedRuns.get(runId);
  if (!run) return false;
  if (run.personalKeyOwner === personId) return true;
  const triggers = await deps.store.operator.triggersOfRun(runId, run.triggerKey);
  const starter = triggers.find((trigger) => trigger.key === run.triggerKey) ?? triggers.find((trigger) => trigger.kind === 'start');
  return starter?.payload.requester?.id === personId;
}
