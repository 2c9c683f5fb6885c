/**
 * Creating a start trigger's run (`start-step.ts`): adopting the one an earlier attempt created before
 * it crashed or timed out, else marking the attempt and creating it — a config run or a factory dispatch.
 */
import type { AgentRuns, CreatedRun } from '../ports/agent-runs.js';
import type { StoredTriggerOf } from '../ports/store.js';
import type { StartPayload } from '../ports/triggers.js';
import { findRunByReference } from './reconcile.js';
import type { ResolvedRoute } from './routing.js';
import type { Settlement, StepContext, UsableKey } from './step-context.js';

/** What the run is created with. */
export interface RunToCreate {
  route: ResolvedRoute;
  prompt: string;
  title: string;
  payload: StartPayload;
}

/**
 * The run, adopted or created under `choice`; undefined when this worker lost the trigger's lease.
 * `mayCreate` is asked right before a new run is created (after a run an earlier attempt created was
 * looked for): a settlement it answers ends the start instead (a limit, `limits/limit-check.ts`).
 */
export async function createOrAdopt(
  ctx: StepContext,
  trigger: StoredTriggerOf<'start'>,
  choice: UsableKey,
  run: RunToCreate,
  mayCreate: () => Promise<Settlement | undefined> = () => Promise.resolve(undefined),
): Promise<CreatedRun | Settlement | undefined> {
  const adopted = await adopt(ctx, trigger, choice, run.route);
  if (adopted) return adopted;
  const refused = await mayCreate();
  if (refused) return refused;
  if (!(await ctx.deps.store.triggers.markCreateAttempted(trigger.id, ctx.deps.owner, ctx.deps.clock.now()))) return undefined;
  return ctx.withKey(choice, 'start', (runs) => create(runs, run));
}

/** The run a previous attempt may have created before it crashed or timed out. */
async function adopt(ctx: StepContext, trigger: StoredTriggerOf<'start'>, choice: UsableKey, route: ResolvedRoute): Promise<CreatedRun | undefined> {
  const attemptedAt = trigger.createAttemptedAt;
  if (attemptedAt === null) return undefined;
  const lookback = ctx.deps.options.reconcileLookbackMs ?? 15 * 60_000;
  // Listed with the key that created it: the run API may show a run only to its creator.
  const found = await ctx.withKey(choice, 'start', (runs) =>
    findRunByReference(runs, trigger.key, {
      ...(route.kind === 'run' && { name: route.config.name }),
      createdAfter: new Date(attemptedAt - lookback).toISOString(),
    }),
  );
  if (!found) return undefined;
  ctx.deps.logger.info({ trigger: trigger.key, runId: found.run_id }, 'adopted the run an earlier attempt created');
  // Stored as just created: the tracker then observes (and announces) whatever state the
  // run has reached since, exactly as if the create had answered.
  return { run_id: found.run_id, state: 'QUEUED' };
}

function create(runs: AgentRuns, { route, prompt, title, payload }: RunToCreate): Promise<CreatedRun> {
  if (route.kind === 'factory') {
    return runs.dispatchToFactory(route.factory_uid, {
      prompt,
      title,
      ...(payload.ticket?.ref && { ticket_ref: payload.ticket.ref }),
      ...(payload.ticket?.url && { ticket_url: payload.ticket.url }),
    });
  }
  return runs.createRun({
    prompt,
    title,
    config: route.config,
    ...(route.agent_identity_uid && { agent_identity_uid: route.agent_identity_uid }),
  });
}
