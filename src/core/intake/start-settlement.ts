/**
 * How a start trigger ends once its run exists (`start-step.ts`): the run to track, the anchor's link,
 * and what each place is owed — its session, the bound issue's notice, and the status message.
 */
import type { CreatedRun } from '../ports/agent-runs.js';
import { receivedKey, transitionKey, type OutboxMessage } from '../ports/messages.js';
import type { NewOutboxRow, StoredTriggerOf } from '../ports/store.js';
import { shownAs, type StartPayload } from '../ports/triggers.js';
import { describeOptions } from '../request-options.js';
import { foldSessionRows, sessionRows } from '../session-rows.js';
import { accountingOf } from './accounting.js';
import { issueReceived, type IssueBinding } from './issue-binding.js';
import type { ResolvedRoute } from './routing.js';
import { settle, type Settlement, type StepContext, type UsableKey } from './step-context.js';

/** The run just created (or adopted) and what led to it. */
export interface StartedRun {
  created: CreatedRun;
  route: ResolvedRoute;
  title: string;
  payload: StartPayload;
  choice: UsableKey;
  /** The issue lookup's answer (`join` never gets here). */
  binding: IssueBinding | undefined;
}

/** The settlement of a started run; a run bound to an issue links the issue's anchor too. */
export function startedSettlement(ctx: StepContext, trigger: StoredTriggerOf<'start'>, started: StartedRun): Settlement {
  const { created, route, title, payload, choice, binding } = started;
  ctx.metrics.runStarted(trigger.source);
  ctx.metrics.intakeLatency(ctx.deps.clock.now() - trigger.receivedAt);
  const issue = binding?.kind === 'bind' ? binding.issue : undefined;
  const destinations = issue ? [...payload.destinations, issue.anchor] : payload.destinations;
  const owed = startOwed(ctx, trigger, started, destinations);
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
        // An approved request's run edits the status message its held request already has.
        triggerKey: shownAs(trigger),
        state: created.state,
        serverUpdatedAt: null,
        sessionLink: null,
        ...(choice.personalKeyOwner !== undefined && { personalKeyOwner: choice.personalKeyOwner }),
        ...accountingOf(choice, route, payload),
      },
      link: { anchor: trigger.anchor, runId: created.run_id },
      owed,
    },
  );
  return issue ? { ...settlement, alsoLink: issue.anchor } : settlement;
}

/** The session where places show one, the issue's notices, and the status message in each place. */
function startOwed(ctx: StepContext, trigger: StoredTriggerOf<'start'>, started: StartedRun, destinations: string[]): NewOutboxRow[] {
  const { created, route, title, payload, binding } = started;
  const snapshot = {
    runId: created.run_id,
    title,
    state: created.state,
    pullRequests: [],
    ...(route.kind === 'run' && route.options && { options: describeOptions(route.options) }),
  };
  // The run's session, where its places show one: working from now on, created with who asked.
  const session = { runId: created.run_id, title, destinations, triggerKey: shownAs(trigger) };
  const owed: NewOutboxRow[] = sessionRows(session, 0, 'working', ctx.deps.sessionPlaces, {
    ...(payload.requester && { initiator: payload.requester }),
  });
  if (binding?.kind === 'bind') owed.push(issueReceived(trigger, binding.issue, title));
  if (binding?.kind === 'refused') owed.push(binding.notice);
  owed.push(
    ...destinations
      .filter((destination) => ctx.surfaces.editsInPlace(destination))
      .map((destination) => ({
        key: transitionKey(created.run_id, 0, destination, 'status'),
        destination,
        kind: 'status',
        payload: { kind: 'status', run: snapshot, receivedKey: receivedKey(shownAs(trigger), destination) } satisfies OutboxMessage,
      })),
  );
  // Where both are owed, the session opens with the status edit: one delivery for the two.
  return foldSessionRows(owed);
}
