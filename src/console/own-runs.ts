import type { Requester } from '../core/ports/triggers.js';
import type { Store } from '../core/ports/store.js';
import { PERSON_IDS } from '../surface-list.js';
import type { ConsoleDeps } from './deps.js';

/**
 * What someone who is not an admin may see: only their own runs — those they asked for (the starting
 * trigger's requester is them: a Slack user id, or their user id on the chat of their person id, such
 * as Teams' object id of `teams:<oid>`) and those created with their personal key (a Linear request
 * of theirs, once their Linear account is linked to them).
 */

/** The person as their own chat's requests name them, when that differs from the person id (`teams:<oid>` asks as `teams`/`<oid>`). */
function requesterAs(personId: string): { platform: string; id: string } | undefined {
  const parsed = PERSON_IDS.parse(personId);
  return parsed && parsed.userId !== personId ? { platform: parsed.surface, id: parsed.userId } : undefined;
}

/** The console's deps with the runs listing narrowed to `personId`'s runs (the pages stay unaware). */
export function ownRunsOnly(deps: ConsoleDeps, personId: string): ConsoleDeps {
  const operator = deps.store.operator;
  const ownedAs = requesterAs(personId);
  const owned = { ownedBy: personId, ...(ownedAs && { ownedAs }) };
  // Object.create keeps every other method and field of the store and its operator repository as they are.
  const narrowed: Store['operator'] = Object.create(operator, {
    listRuns: { value: (query: Parameters<Store['operator']['listRuns']>[0]) => operator.listRuns({ ...query, ...owned }) },
  }) as Store['operator'];
  const store = Object.create(deps.store, { operator: { value: narrowed } }) as Store;
  return { ...deps, store };
}

/** True when `requester` is the person `personId`: their bare id, or their user id on their own chat. */
function isPerson(requester: Requester | undefined, personId: string): boolean {
  if (!requester) return false;
  if (requester.id === personId) return true;
  const as = requesterAs(personId);
  return as !== undefined && requester.platform === as.platform && requester.id === as.id;
}

/** True when the run is `personId`'s: they asked for it (its starting trigger's requester), or it runs under their key. */
export async function asksFor(deps: ConsoleDeps, runId: string, personId: string): Promise<boolean> {
  const run = await deps.store.trackedRuns.get(runId);
  if (!run) return false;
  if (run.personalKeyOwner === personId) return true;
  const triggers = await deps.store.operator.triggersOfRun(runId, run.triggerKey);
  const starter = triggers.find((trigger) => trigger.key === run.triggerKey) ?? triggers.find((trigger) => trigger.kind === 'start');
  return isPerson(starter?.payload.requester, personId);
}
