/**
 * A start trigger: reads the request, joins or binds an issue it names, applies the route and
 * the request's options, creates the run under the asker's key — adopting one an earlier attempt
 * created — and settles with the run, its link and the status message owed to each place.
 */
import type { AgentRuns, CreatedRun } from '../ports/agent-runs.js';
import type { OutboxMessage } from '../ports/messages.js';
import { receivedKey, transitionKey } from '../ports/messages.js';
import type { NewOutboxRow, StoredTrigger, StoredTriggerOf } from '../ports/store.js';
import { type StartPayload, promptWithReference } from '../ports/triggers.js';
import { describeOptions } from '../request-options.js';
import { sendFollowup, withFollowupContext } from './followup-step.js';
import { failureMessages } from './intake-messages.js';
import { bindIssue, boundTitle, issueReceived, joinedNotice } from './issue-binding.js';
import { takeIssueStart, type StartClaim } from './issue-start-lock.js';
import { readRequestStep } from './read-request-step.js';
import { findRunByReference } from './reconcile.js';
import { applyRequestOptions } from './request-options-step.js';
import { resolveRoute, type ResolvedRoute } from './routing.js';
import { sessionRows } from '../session-rows.js';
import { settle, type Settlement, type StepContext } from './step-context.js';

/** `starting` collects the anchors whose start lease this attempt takes (one start at a time per issue). */
export async function startStep(ctx: StepContext, trigger: StoredTriggerOf<'start'>, starting: string[]): Promise<Settlement | undefined> {
  const read = await readRequestStep(trigger, trigger.payload, ctx.deps.enrichers?.[trigger.source]);
  if (read.kind === 'refused') return settle({ state: 'ignored', error: 'request unreadable' }, { owed: read.owed });
  let payload = read.payload;
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
  const binding = await bindIssue(
    trigger,
    ctx.deps.issueLinkers?.[trigger.source],
    ctx.deps.store,
    (anchor, others) => ctx.currentRun(anchor, others),
    startClaim(ctx, trigger),
  );
  if (binding?.kind === 'bind') starting.push(binding.issue.anchor);
  if (binding?.kind === 'join') {
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
    return settle(joined.outcome, effects);
  }
  const issue = binding?.kind === 'bind' ? binding.issue : undefined;
  const optioned = applyRequestOptions(trigger, payload, resolveRoute(ctx.deps.routing, payload.origin, ctx.surfaces), ctx.surfaces);
  if (optioned.kind === 'refused') return settle({ state: 'ignored', error: 'options not allowed' }, { owed: optioned.owed });
  const route = optioned.route;
  payload = optioned.payload;
  // Chosen before the context is gathered: a request that may not run costs no platform call.
  const choice = await ctx.keys.choose(payload.requester);
  if (choice.kind === 'refused') return ctx.noKey(trigger, 'start');
  const enriched = await enrich(ctx, trigger, payload);
  const prompt = promptWithReference(issue ? `${enriched}\n\n${issue.context}` : enriched, trigger.key);
  const title = route.title ?? (issue ? boundTitle(issue) : payload.title);
  let created: CreatedRun | undefined;
  const attemptedAt = trigger.createAttemptedAt;
  if (attemptedAt !== null) {
    // A previous attempt may have created the run before it crashed or timed out: adopt it.
    const lookback = ctx.deps.options.reconcileLookbackMs ?? 15 * 60_000;
    // Listed with the key that created it: the run API may show a run only to its creator.
    const found = await ctx.withKey(choice, 'start', (runs) =>
      findRunByReference(runs, trigger.key, {
        ...(route.kind === 'run' && { name: route.config.name }),
        createdAfter: new Date(attemptedAt - lookback).toISOString(),
      }),
    );
    if (found) {
      ctx.deps.logger.info({ trigger: trigger.key, runId: found.run_id }, 'adopted the run an earlier attempt created');
      // Stored as just created: the tracker then observes (and announces) whatever state the
      // run has reached since, exactly as if the create had answered.
      created = { run_id: found.run_id, state: 'QUEUED' };
    }
  }
  if (!created) {
    if (!(await ctx.deps.store.triggers.markCreateAttempted(trigger.id, ctx.deps.owner, ctx.deps.clock.now()))) return undefined;
    created = await ctx.withKey(choice, 'start', (runs) => create(runs, route, prompt, title, payload));
  }
  ctx.metrics.runStarted(trigger.source);
  ctx.metrics.intakeLatency(ctx.deps.clock.now() - trigger.receivedAt);
  const destinations = issue ? [...payload.destinations, issue.anchor] : payload.destinations;
  const snapshot = {
    runId: created.run_id,
    title,
    state: created.state,
    pullRequests: [],
    ...(route.kind === 'run' && route.options && { options: describeOptions(route.options) }),
  };
  // The run's session, where its places show one: working from now on, created with who asked.
  const session = { runId: created.run_id, title, destinations, triggerKey: trigger.key };
  const owed: NewOutboxRow[] = sessionRows(session, 0, 'working', ctx.deps.sessionPlaces, {
    ...(payload.requester && { initiator: payload.requester }),
  });
  if (issue) owed.push(issueReceived(trigger, issue, title));
  if (binding?.kind === 'refused') owed.push(binding.notice);
  owed.push(
    ...destinations.map((destination) => ({
      key: transitionKey(created.run_id, 0, destination, 'status'),
      destination,
      kind: 'status',
      payload: { kind: 'status', run: snapshot, receivedKey: receivedKey(trigger.key, destination) } satisfies OutboxMessage,
    })),
  );
  const settlement = settle(
    { state: 'done', runId: created.run_id },
    {
      run: {
        runId: created.run_id,
        anchor: trigger.anchor,
        source: trigger.source,
        title,
        route,
        destinations,
        triggerKey: trigger.key,
        state: created.state,
        serverUpdatedAt: null,
        sessionLink: null,
        ...(choice.keyOwner !== undefined && { keyOwner: choice.keyOwner }),
      },
      link: { anchor: trigger.anchor, runId: created.run_id },
      owed,
    },
  );
  return issue ? { ...settlement, alsoLink: issue.anchor } : settlement;
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

function create(runs: AgentRuns, route: ResolvedRoute, prompt: string, title: string, payload: StartPayload): Promise<CreatedRun> {
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
