/**
 * A follow-up trigger: sends the words to the anchor's (or the named) run under the asker's key — with
 * what was said since the agent's previous turn, or gathered with the replies of its window — and
 * acknowledges it where it was written and in the run's other places.
 */
import { AgentApiError } from '../ports/agent-runs.js';
import type { StoredTrigger, StoredTriggerOf } from '../ports/store.js';
import { keyFacts, routeName } from './audit-entry.js';
import type { ResolvedRoute } from './routing.js';
import { followupAccepted, gatherFollowups, sendGathered, type GatherDeps } from './followup-batch.js';
import { followupHeardElsewhere, notice } from './intake-messages.js';
import { revivedSessionRows } from '../session-rows.js';
import { requesterOf, settle, type Settlement, type StepContext } from './step-context.js';

export async function followupStep(ctx: StepContext, trigger: StoredTriggerOf<'followup'>): Promise<Settlement> {
  const payload = trigger.payload;
  const runId = payload.runId ?? (await ctx.currentRun(trigger.anchor, payload.otherAnchors));
  // A reply in a thread that never had a run is conversation, not a request.
  if (!runId)
    return settle({ state: 'ignored', error: 'no run at this anchor' }, payload.noRunNotice ? { owed: [notice(trigger, 'no-run', payload.noRunNotice)] } : {});
  // followups: all — the replies stored behind this one within its window go with it, as one.
  const batch: GatherDeps = { ...ctx.deps, leaseMs: ctx.leaseMs, ...(ctx.deps.followupWindows && { windows: ctx.deps.followupWindows }) };
  const gathered = await gatherFollowups(batch, trigger);
  if (gathered.length > 0) return sendGathered(batch, trigger, gathered, (message) => sendFollowup(ctx, trigger, runId, message, payload.reference));
  return sendFollowup(ctx, trigger, runId, await withFollowupContext(ctx, trigger, payload.message, payload.reference), payload.reference);
}

/** A follow-up's text with what was said since the agent's previous turn (docs/configuration.md). */
export async function withFollowupContext(ctx: StepContext, trigger: StoredTrigger, message: string, reference: unknown): Promise<string> {
  const enricher = ctx.deps.enrichers?.[trigger.source];
  if (!enricher?.followupContext) return message;
  try {
    const context = await enricher.followupContext(trigger, reference);
    return context ? `${message}\n\n${context}` : message;
  } catch (error) {
    ctx.deps.logger.warn({ err: error, trigger: trigger.key }, 'could not gather what was said since the last turn; sending the follow-up alone');
    return message;
  }
}

/** Sends `message` to the run under the asker's key; also how a start that joins an active run reaches it. */
export async function sendFollowup(ctx: StepContext, trigger: StoredTrigger, runId: string, message: string, reference: unknown): Promise<Settlement> {
  const choice = await ctx.keys.choose(requesterOf(trigger));
  if (choice.kind === 'refused') return ctx.noKey(trigger, 'followup');
  try {
    await ctx.withKey(choice, 'followup', (runs) => runs.sendFollowup(runId, message));
  } catch (error) {
    if (error instanceof AgentApiError && error.kind === 'not_found') {
      const hidden = await ctx.hiddenFrom(runId, choice);
      const text = hidden ? `Your reply was not delivered: ${hidden}.` : `The run ${runId} no longer exists, so your reply was not delivered.`;
      return settle({ state: 'failed', runId, error: hidden ? 'run not visible to this key' : 'run not found' }, { owed: [notice(trigger, 'gone', text)] });
    }
    throw error;
  }
  ctx.metrics.followupSent(trigger.source);
  ctx.metrics.intakeLatency(ctx.deps.clock.now() - trigger.receivedAt);
  const run = await ctx.deps.store.trackedRuns.get(runId);
  const elsewhere = run ? followupHeardElsewhere(trigger, run, requesterOf(trigger), ctx.surfaces) : [];
  // A run that waited or was over works again: its places' sessions say so now.
  const revived = run ? revivedSessionRows(run, ctx.deps.sessionPlaces) : [];
  const route = routeName(run?.route as ResolvedRoute | undefined);
  const audit = { act: 'run.followed_up' as const, ...keyFacts(choice.personalKeyOwner), ...(route !== undefined && { route }) };
  return settle(
    { state: 'done', runId },
    { retrack: runId, owed: [...revived, ...followupAccepted(trigger, runId, reference, ctx.surfaces), ...elsewhere] },
    audit,
  );
}
