import type { Clock } from '../ports/clock.js';
import type { OutboxMessage } from '../ports/messages.js';
import { Surfaces } from '../surfaces.js';
import type { NewOutboxRow, Store, StoredTrigger, StoredTriggerOf, TriggerEffects, TriggerOutcome } from '../ports/store.js';

/**
 * Follow-ups sent as one (a surface's `followup_window` with `followups: all`):
 * a follow-up trigger is stored due only a window after it arrived (IntakeService), so the worker that
 * claims the first of a burst finds the others stored behind it, takes them under its own lease in one
 * statement (`claimFollowing`), sends their texts in order as one follow-up and ends them all in the
 * transaction that ends the first. A crash before that end leaves them all claimed by a dead worker:
 * the next claim of the first takes the same ones again, so none is lost and none goes twice.
 */

/** At most this many follow-ups go as one (a flood is sent in slices of this size, still in order). */
export const MAX_GATHERED = 50;

export interface GatherDeps {
  store: Store;
  clock: Clock;
  owner: string;
  leaseMs: number;
  /** By trigger source: how long a follow-up waits for more (ms); 0 or absent: each goes alone. */
  windows?: Record<string, number>;
  /** What each place can do (an accepted follow-up is acknowledged only where its surface reacts). Absent: none registered. */
  surfaces?: Surfaces;
}

/** How a handler ends a trigger, as the worker's settlement has it. */
interface Settled {
  outcome: TriggerOutcome;
  effects: TriggerEffects;
}

/**
 * The follow-ups that go with `head` (claimed by `deps.owner`): none without a window for its source.
 * Each follow-up is sent with its asker's key (`people.attribution`), so a burst is cut at the first
 * reply by someone else; the cut-off ones are given back and go as the next follow-up, in order.
 */
export async function gatherFollowups(deps: GatherDeps, head: StoredTriggerOf<'followup'>): Promise<Array<StoredTriggerOf<'followup'>>> {
  if ((deps.windows?.[head.source] ?? 0) <= 0) return [];
  const claimed = await deps.store.triggers.claimFollowing(head, deps.owner, deps.clock.now(), deps.leaseMs, MAX_GATHERED - 1);
  const asker = head.payload.requester?.id;
  const cut = claimed.findIndex((trigger) => trigger.kind !== 'followup' || trigger.payload.requester?.id !== asker);
  if (cut !== -1)
    await deps.store.triggers.release(
      claimed.slice(cut).map((trigger) => trigger.id),
      deps.owner,
      deps.clock.now(),
    );
  return (cut === -1 ? claimed : claimed.slice(0, cut)) as Array<StoredTriggerOf<'followup'>>;
}

/** The texts of the head and the follow-ups gathered with it, oldest first, as one message. */
export function gatheredMessage(head: StoredTriggerOf<'followup'>, gathered: ReadonlyArray<StoredTriggerOf<'followup'>>): string {
  return [head, ...gathered].map((trigger) => trigger.payload.message.trim()).join('\n\n');
}

/**
 * The acknowledgement a follow-up the run API accepted owes where it was written (✉️ in a chat, a
 * reaction on an issue) — nothing where its surface cannot react.
 */
export function followupAccepted(trigger: Pick<StoredTrigger, 'key' | 'anchor'>, runId: string, reference: unknown, surfaces: Surfaces): NewOutboxRow[] {
  if (!surfaces.reacts(trigger.anchor)) return [];
  return [
    {
      key: `followup:${trigger.key}:${trigger.anchor}`,
      destination: trigger.anchor,
      kind: 'followup_accepted',
      payload: { kind: 'followup_accepted', runId, ...(reference !== undefined && { reference }) } satisfies OutboxMessage,
    },
  ];
}

/**
 * Sends the head and its gathered follow-ups as one message through `send` (the worker's own
 * follow-up step, which acknowledges the head) and makes its settlement the settlement of all: each
 * gathered reply acknowledged as its own, all ended with the head. When `send` throws (a retry is
 * coming), the gathered ones are given back first, to be gathered again with the head's next attempt.
 */
export async function sendGathered<S extends Settled>(
  deps: GatherDeps,
  head: StoredTriggerOf<'followup'>,
  gathered: ReadonlyArray<StoredTriggerOf<'followup'>>,
  send: (message: string) => Promise<S>,
): Promise<S> {
  let settled: S;
  try {
    settled = await send(gatheredMessage(head, gathered));
  } catch (error) {
    await deps.store.triggers.release(
      gathered.map((trigger) => trigger.id),
      deps.owner,
      deps.clock.now(),
    );
    throw error;
  }
  const runId = settled.outcome.runId;
  const acknowledged =
    settled.outcome.state === 'done' && runId !== undefined
      ? gathered.flatMap((trigger) => followupAccepted(trigger, runId, trigger.payload.reference, deps.surfaces ?? Surfaces.none))
      : [];
  return {
    ...settled,
    effects: { ...settled.effects, owed: [...(settled.effects.owed ?? []), ...acknowledged], together: gathered.map((trigger) => trigger.id) },
  };
}
