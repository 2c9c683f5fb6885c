/**
 * A start on a route that needs approval (docs/approvals-and-audit.md): nothing runs
 * yet. The request is held in the store (once per trigger, so a retried attempt holds nothing more),
 * the question with its Approve and Reject controls is owed where the route asks and to each approver,
 * and the trigger ends; an approval later starts it again as if just asked (`core/approvals/`).
 */
import { receivedKey, type OutboxMessage } from '../ports/messages.js';
import type { NewOutboxRow, StoredTriggerOf } from '../ports/store.js';
import { requesterName, type StartPayload } from '../ports/triggers.js';
import { routeName } from './audit-entry.js';
import { notice } from './intake-messages.js';
import type { ResolvedRoute, RouteApproval } from './routing.js';
import { settle, type Settlement, type StepContext } from './step-context.js';

/** Whether the start waits for approval: its route asks for one and nobody approved it yet. */
export function needsApproval(route: ResolvedRoute, payload: StartPayload): route is ResolvedRoute & { approval: RouteApproval } {
  return route.approval !== undefined && payload.approvedBy === undefined;
}

/** Holds the request and owes the question; the trigger ends `ignored` (nothing ran) with an audit entry. */
export async function holdForApproval(
  ctx: StepContext,
  trigger: StoredTriggerOf<'start'>,
  route: ResolvedRoute & { approval: RouteApproval },
  title: string,
): Promise<Settlement> {
  const now = ctx.deps.clock.now();
  const { approval } = route;
  const name = routeName(route) ?? trigger.source;
  const expiresAt = now + approval.expiresMs;
  const original = trigger.payload;
  await ctx.deps.store.approvals.hold({
    id: trigger.key,
    trigger: { kind: 'start', key: trigger.key, source: trigger.source, anchor: trigger.anchor, payload: original },
    approvers: approval.approvers,
    route: name,
    heldAt: now,
    expiresAt,
  });
  const place = approval.place ?? trigger.anchor;
  // At a bare channel the question goes into the thread the request's status message started there.
  const threadKey = original.destinations.includes(place) ? receivedKey(trigger.key, place) : undefined;
  const requester = requesterName(original.requester);
  const question = (more: Partial<Extract<OutboxMessage, { kind: 'approval' }>>): OutboxMessage => ({
    kind: 'approval',
    approvalId: trigger.key,
    title,
    route: name,
    approvers: approval.approvers,
    expiresAt,
    ...(requester !== undefined && { requester }),
    ...more,
  });
  const owed: NewOutboxRow[] = [
    {
      key: `approval:${trigger.key}:asked:${place}`,
      destination: place,
      kind: 'approval',
      payload: question(threadKey !== undefined ? { receivedKey: threadKey } : {}),
    },
    ...approval.approverPlaces.map((destination) => ({
      key: `approval:${trigger.key}:asked:${destination}`,
      destination,
      kind: 'approval',
      payload: question({ thread: { place, ...(threadKey !== undefined && { receivedKey: threadKey }) } }),
    })),
  ];
  // Asked elsewhere (an issue's request, asked in a chat channel): the request's own place says so.
  if (place !== trigger.anchor)
    owed.push(
      notice(
        trigger,
        'held',
        `This request waits for approval: ${approval.approvers.length === 1 ? 'its approver was' : 'its approvers were'} asked in ${ctx.surfaces.title(place)}.`,
      ),
    );
  const expiresIn = Math.round(approval.expiresMs / 60_000);
  return settle({ state: 'ignored', error: 'held for approval' }, { owed }, { act: 'request.held', route: name, detail: { expires_in_minutes: expiresIn } });
}
