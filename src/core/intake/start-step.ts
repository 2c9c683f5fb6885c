/**
 * A start trigger: reads the request, joins or binds an issue it names, applies the route and
 * the request's options, creates the run under the asker's key — adopting one an earlier attempt
 * created (`start-create.ts`) — and settles with the run, its link and the status message owed to each
 * place (`start-settlement.ts`).
 */
import type { CreatedRun } from '../ports/agent-runs.js';
import type { StoredTrigger, StoredTriggerOf } from '../ports/store.js';
import { type StartPayload, promptWithReference } from '../ports/triggers.js';
import { sendFollowup, withFollowupContext } from './followup-step.js';
import { holdForApproval, needsApproval } from './hold-for-approval.js';
import { failureMessages } from './intake-messages.js';
import { bindIssue, boundTitle, joinedNotice, type IssueBinding } from './issue-binding.js';
import { takeIssueStart, type StartClaim } from './issue-start-lock.js';
import { fillRequest } from './fill-request.js';
import { applyRequestOptions } from './apply-request-options.js';
import { resolveRoute } from './routing.js';
import { sessionRows } from '../session-rows.js';
import { createOrAdopt } from './start-create.js';
import { checkLimits } from '../limits/limit-check.js';
import { startedSettlement } from './start-settlement.js';
import { settle, type Settlement, type StepContext } from './step-context.js';

/** `starting` collects the anchors whose start lease this attempt takes (one start at a time per issue). */
export async function startStep(ctx: StepContext, trigger: StoredTriggerOf<'start'>, starting: string[]): Promise<Settlement | undefined> {
  const read = await fillRequest(trigger, trigger.payload, ctx.deps.enrichers?.[trigger.source]);
  if (read.kind === 'refused') return settle({ state: 'ignored', error: 'request unreadable' }, { owed: read.owed });
  const existing = await settledByAnchorRun(ctx, trigger, read.payload, starting);
  if (existing) return existing;
  const binding = await bindIssue(
    trigger,
    ctx.deps.issueLinkers?.[trigger.source],
    ctx.deps.store,
    (anchor, others) => ctx.currentRun(anchor, others),
    startClaim(ctx, trigger),
  );
  if (binding?.kind === 'bind') starting.push(binding.issue.anchor);
  if (binding?.kind === 'join') return joinIssueRun(ctx, trigger, read.payload, binding);
  const issue = binding?.kind === 'bind' ? binding.issue : undefined;
  const optioned = applyRequestOptions(trigger, read.payload, resolveRoute(ctx.deps.routing, read.payload.origin, ctx.surfaces), ctx.surfaces);
  if (optioned.kind === 'refused') return settle({ state: 'ignored', error: 'options not allowed' }, { owed: optioned.owed });
  const { route, payload } = optioned;
  // Held before anything else is spent on it: the key is chosen, and the context read, once approved.
  if (needsApproval(route, payload)) return holdForApproval(ctx, trigger, route, route.title ?? (issue ? boundTitle(issue) : payload.title));
  // Chosen before the context is gathered: a request that may not run costs no platform call.
  const choice = await ctx.keys.choose(payload.requester);
  if (choice.kind === 'refused') return ctx.noKey(trigger, 'start');
  const enriched = await enrich(ctx, trigger, payload);
  const prompt = promptWithReference(issue ? `${enriched}\n\n${issue.context}` : enriched, trigger.key);
  const title = route.title ?? (issue ? boundTitle(issue) : payload.title);
  const created = await createOrAdopt(ctx, trigger, choice, { route, prompt, title, payload }, () => checkLimits(ctx, trigger, choice, route, payload));
  if (!created) return undefined;
  if (isSettlement(created)) return created;
  return startedSettlement(ctx, trigger, { created, route, title, payload, choice, binding });
}

/**
 * What the anchor's current run makes of the request before anything starts: a follow-up to it
 * (`followupIfLinked`), or nothing while it is active (`unlessActive`, which also takes the anchor's
 * start lease). Undefined: go on starting.
 */
async function settledByAnchorRun(
  ctx: StepContext,
  trigger: StoredTriggerOf<'start'>,
  payload: StartPayload,
  starting: string[],
): Promise<Settlement | undefined> {
  if (payload.followupIfLinked) {
    const current = await ctx.currentRun(trigger.anchor, payload.otherAnchors);
    if (current) return sendFollowup(ctx, trigger, current, await withFollowupContext(ctx, trigger, payload.prompt, payload.reference), payload.reference);
  }
  if (payload.unlessActive) {
    const current = await ctx.currentRun(trigger.anchor, payload.otherAnchors);
    const run = current ? await ctx.deps.store.trackedRuns.get(current) : undefined;
    if (run?.tracked) {
      const reason = `run ${run.runId} is still active here (${run.state}); stop it or wait for it to end before starting another`;
      return settle({ state: 'ignored', runId: run.runId, error: 'a run is already active' }, { owed: failureMessages(trigger, reason) });
    }
    // A request about the same issue worked at this moment (a chat mention naming it) must not start a second run.
    await takeIssueStart(ctx.deps.store, trigger.anchor, startClaim(ctx, trigger));
    starting.push(trigger.anchor);
  }
  return undefined;
}

/** The issue the request names already has an active run: the request goes to it, and the trigger's place joins it. */
async function joinIssueRun(
  ctx: StepContext,
  trigger: StoredTriggerOf<'start'>,
  payload: StartPayload,
  binding: Extract<IssueBinding, { kind: 'join' }>,
): Promise<Settlement> {
  const joined = await sendFollowup(ctx, trigger, binding.runId, payload.prompt, payload.reference);
  const done = joined.outcome.state === 'done';
  // The thread shows the run from now on, working (it was just sent the request), where it shows sessions.
  const run = done ? await ctx.deps.store.trackedRuns.get(binding.runId) : undefined;
  const session = run
    ? sessionRows({ ...run, destinations: [trigger.anchor], triggerKey: trigger.key }, run.transition + 1, 'working', ctx.deps.sessionPlaces)
    : [];
  const owed = [...session, ...(joined.effects.owed ?? []), joinedNotice(trigger, binding.issue, binding.runId)];
  // The thread becomes one of the run's places (the tracker announces the run's next states there
  // too) before the trigger is finished: a finished trigger is never worked again, so a crash right
  // after the finish must not lose the place. Adding it again on a retry changes nothing.
  if (done) await ctx.deps.store.trackedRuns.addDestination(binding.runId, trigger.anchor, ctx.deps.clock.now());
  const effects = { ...joined.effects, ...(done && { link: { anchor: trigger.anchor, runId: binding.runId } }), owed };
  return settle(joined.outcome, effects, joined.audit);
}

/** A start that ended before its run was created (a run has no `outcome`). */
function isSettlement(created: CreatedRun | Settlement): created is Settlement {
  return 'outcome' in created && 'effects' in created;
}

/** How this worker holds an issue's start lease for `trigger`. */
function startClaim(ctx: StepContext, trigger: StoredTrigger): StartClaim {
  return { triggerKey: trigger.key, now: ctx.deps.clock.now(), leaseMs: ctx.leaseMs };
}

async function enrich(ctx: StepContext, trigger: StoredTrigger, payload: StartPayload): Promise<string> {
  const enricher = ctx.deps.enrichers?.[trigger.source];
  if (!enricher) return payload.prompt;
  try {
    return await enricher.enrich(trigger, payload);
  } catch (error) {
    ctx.deps.logger.warn({ err: error, trigger: trigger.key }, 'could not gather the request context; starting with the request alone');
    return payload.prompt;
  }
}
