/**
 * Step 4 of the composition root (`main.ts`): the front door (the intake) and the edges that hand it
 * requests — the surfaces' integrations — with whose key each request runs under.
 */
import type { AgentRuns } from '../core/ports/agent-runs.js';
import { ApprovalDesk } from '../core/approvals/approval-desk.js';
import { IntakeService } from '../core/intake/intake-service.js';
import type { Store } from '../core/ports/store.js';
import { PERSON_IDS, SURFACE_MODULES } from '../surface-list.js';
import { personIdentity } from './people.js';
import { composeRunKeys, type RunKeyParts } from './run-keys.js';
import type { ServiceBase } from './service-base.js';
import { AccessBySurface, startSurfaces } from './started-surfaces.js';
import { FreeWorkers } from '../core/hand-over/free-workers.js';
import { Wake } from './wake.js';

/** What the front door is built on: the store, the run API and its hooks. */
export interface FrontDoorParts {
  store: Store;
  agentRuns: AgentRuns;
  baseUrl: string;
  apiHooks: NonNullable<RunKeyParts['hooks']>;
}

/** 4. The intake, the surfaces' edges that submit to it, and the keys requests run under. */
export async function openFrontDoor({ config, logger, clock, shutdown, overrides }: ServiceBase, parts: FrontDoorParts) {
  const { store, agentRuns } = parts;
  const stored = new Wake();
  const owed = new Wake();
  const freeWorkers = new FreeWorkers();
  const bySurface = new AccessBySurface(SURFACE_MODULES, config);
  const access = overrides?.access ?? bySurface;
  // followups: all — a burst of replies within the window goes to the run as one follow-up.
  const followupWindows = Object.fromEntries(SURFACE_MODULES.map((module) => [module.name, module.followupWindowMs?.(config) ?? 0]));
  const intake = new IntakeService({
    store,
    clock,
    access,
    onStored: stored.fire,
    onOwed: owed.fire,
    ...(store.triggers.handsOver && { freeWorkers }),
    followupWindows,
  });
  // Requests held for approval: decided by the buttons of the chat where they were asked, expired by the work loops' sweep.
  const approvals = new ApprovalDesk({
    store,
    intake,
    clock,
    logger: logger.child({ component: 'approvals' }),
    personOf: (requester) => PERSON_IDS.of(requester.platform, requester.id),
  });
  const surfaces = await startSurfaces(
    SURFACE_MODULES,
    config,
    { intake, store, clock, logger, approvals, accessOf: (name) => overrides?.access ?? bySurface.of(name) },
    (name, stop) => shutdown.add(name, stop),
  );
  // Whose key each request runs under (people.attribution); the per-person clients close after the workers stop.
  const identity = personIdentity(store, { people: surfaces.peopleDirectories(), emailOf: surfaces.emailOf() }, clock, logger);
  const runKeys = composeRunKeys(config, { service: agentRuns, baseUrl: parts.baseUrl, store, clock, identity, hooks: parts.apiHooks });
  shutdown.add('personal run API clients', () => runKeys.close());
  return { stored, owed, freeWorkers, access, followupWindows, intake, surfaces, runKeys, approvals };
}
