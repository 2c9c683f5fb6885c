/** A cancel trigger: stops the anchor's (or the named) run under the right key, and says what became of it. */
import { AgentApiError, isTerminalState } from '../ports/agent-runs.js';
import type { Requester } from '../ports/triggers.js';
import { requesterName } from '../ports/triggers.js';
import type { KeyChoice } from '../ports/people.js';
import { cancelledBySetting } from '../ports/setting-names.js';
import type { StoredTriggerOf } from '../ports/store.js';
import { keyFacts, routeName } from './audit-entry.js';
import { notice, stoppingMessages } from './intake-messages.js';
import type { ResolvedRoute } from './routing.js';
import { endedSessionRows } from '../session-rows.js';
import { settle, type Settlement, type StepContext } from './step-context.js';

export async function cancelStep(ctx: StepContext, trigger: StoredTriggerOf<'cancel'>): Promise<Settlement> {
  const payload = trigger.payload;
  const runId = payload.runId ?? (await ctx.currentRun(trigger.anchor, payload.otherAnchors));
  if (!runId) return settle({ state: 'ignored', error: 'no run at this anchor' }, { owed: [notice(trigger, 'nothing', 'There is no run here to stop.')] });
  const choice = await cancelKey(ctx, payload.requester, runId);
  if (choice.kind === 'refused') return ctx.noKey(trigger, 'cancel');
  const who = requesterName(payload.requester);
  // Written before the call so the tracker's CANCELLED announcement can say who it was.
  if (who) await ctx.deps.store.settings.set(cancelledBySetting(runId), who);
  try {
    await ctx.withKey(choice, 'cancel', (runs) => runs.cancelRun(runId));
  } catch (error) {
    const hidden = error instanceof AgentApiError && error.kind === 'not_found' ? await ctx.hiddenFrom(runId, choice) : undefined;
    if (hidden)
      return settle(
        { state: 'failed', runId, error: 'run not visible to this key' },
        { owed: [notice(trigger, 'not-visible', `The run was not stopped: ${hidden}.`)] },
      );
    if (error instanceof AgentApiError && error.kind === 'bad_request') {
      const state = await choice.runs.getRun(runId).then(
        (run) => run.state,
        () => undefined,
      );
      const text =
        state === 'BLOCKED'
          ? 'The run is waiting for input and cannot be cancelled now; reply to continue it.'
          : `The run has already ended${state ? ` (${state})` : ''}; there is nothing to stop.`;
      // Ended before the tracker saw it (or an earlier attempt's cancel took before a crash): its
      // sessions stop working now, as the tracker's observation of the end would (the same row).
      const stored = state !== undefined && isTerminalState(state) ? await ctx.deps.store.trackedRuns.get(runId) : undefined;
      const ended = stored ? endedSessionRows(stored, ctx.deps.sessionPlaces) : [];
      return settle({ state: 'done', runId, error: 'not cancellable' }, { owed: [...ended, notice(trigger, 'not-cancellable', text)] });
    }
    throw error;
  }
  ctx.metrics.cancelRequested(trigger.source);
  const run = await ctx.deps.store.trackedRuns.get(runId);
  // A run not stored here has no status message to edit, and the tracker will not announce its end.
  const owed = run
    ? [...endedSessionRows(run, ctx.deps.sessionPlaces), ...stoppingMessages(trigger, run, who, payload.reference)]
    : [notice(trigger, 'cancelling', `Stopping the run ${runId}${who ? ` (requested by ${who})` : ''}.`)];
  const route = routeName(run?.route as ResolvedRoute | undefined);
  // Who stopped it is who asked (an admin's console cancel uses the run's own key, not the admin's).
  const audit = {
    key: keyFacts(choice.personalKeyOwner).key,
    ...(payload.requester && { person: payload.requester.id }),
    ...(route !== undefined && { route }),
  };
  return settle({ state: 'done', runId }, { owed }, audit);
}

/**
 * The key a cancel uses: the asker's, as `people.attribution` says. A cancel no person asked for (the
 * console's admin token) is the operator's and uses the key that created the run, since the run API
 * may show a run only to that key; the console has already decided the admin may cancel it.
 */
async function cancelKey(ctx: StepContext, requester: Requester | undefined, runId: string): Promise<KeyChoice> {
  if (requester === undefined || requester.platform === 'console') {
    const owner = (await ctx.deps.store.trackedRuns.get(runId))?.personalKeyOwner;
    const runs = owner === undefined ? undefined : await ctx.keys.forOwner(owner);
    if (runs && owner !== undefined) return { kind: 'use', runs, personalKeyOwner: owner };
  }
  return ctx.keys.choose(requester);
}
