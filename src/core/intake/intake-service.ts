import type { Clock } from '../ports/clock.js';
import { deniedNotice, type AccessPolicy } from '../ports/intake.js';
import { receivedKey, type OutboxMessage } from '../ports/messages.js';
import { reserveTakers, type ReservedTakers } from '../hand-over/free-workers.js';
import type { FreeWorkerSource } from '../hand-over/hand-over.js';
import type { EnqueueResult, NewOutboxRow, Store } from '../ports/store.js';
import { requesterName, type TriggerInput } from '../ports/triggers.js';
import { ATTR } from '../ports/trace-names.js';
import { tracing, type TraceSpan } from '../ports/tracing.js';

/** A trigger an edge tried to submit that breaks the core's rules: a bug at the edge, not bad user input. */
export class InvalidTriggerError extends Error {
  override readonly name = 'InvalidTriggerError';
}

/**
 * The core's front door for every edge (the surfaces, schedules, CLI): store the trigger once per
 * key, together with the "received" messages owed for it, then wake the workers. The edge answers
 * its platform only after this resolves (store, acknowledge, then work).
 */
export class IntakeService {
  constructor(
    private readonly deps: {
      store: Store;
      clock: Clock;
      /** Told after a new trigger is stored and not handed to a worker (wakes the intake and outbox workers). */
      onStored?: () => void;
      /** Told after messages are owed that no worker was handed (wakes the outbox workers). */
      onOwed?: () => void;
      /** Free workers to hand a trigger due now and its first message over to (core/hand-over/). */
      freeWorkers?: FreeWorkerSource;
      /** Who may ask: a refused request is stored (so a retry is still recognised) but owes only a private notice. */
      access?: AccessPolicy;
      /**
       * By trigger source: how long a follow-up waits for more before it is worked (`followup_window`
       * with `followups: all`), so a burst of replies goes to the run as one follow-up. 0 or absent: at once.
       */
      followupWindows?: Record<string, number>;
    },
  ) {}

  /**
   * Stores the trigger; `accepted` is false for a key already seen (a retried or redelivered event).
   * `rememberKeys` (e.g. a webhook's delivery id) are remembered in the same transaction, and
   * `alsoOwed` (e.g. a mark of receipt on the request) is owed with the trigger, only when it is new.
   * A trigger whose requester is still to be cleared (`checkRequester`) owes nothing yet, not even its
   * "received" messages: the worker owes them once the surface says the requester may act.
   *
   * Two steps: what is owed (`owedFor`: the trigger, the messages it owes, when it is due), stored in
   * one commit; and who takes it (`takeOrWake`): the free workers reserved for it take what the store
   * handed over to them (core/hand-over/), and the loops are woken for the rest.
   */
  async submit(
    input: TriggerInput,
    options: { rememberKeys?: readonly string[]; alsoOwed?: readonly NewOutboxRow[] } = {},
  ): Promise<{ accepted: boolean; triggerId: number }> {
    validate(input);
    const traces = tracing();
    const span = traces.on ? describeRequest(traces.active(), input) : undefined;
    const owed = this.owedFor(input, options.alsoOwed, span?.traceparent);
    // A trigger gathered for a window is due later: no worker is kept waiting for it.
    const takers = reserveTakers(owed.dueAt > owed.now ? undefined : this.deps.freeWorkers, { row: owed.rows.length > 0 });
    const { rememberKeys } = options;
    const stored = await this.deps.store.triggers
      .enqueue({
        trigger: input,
        owed: owed.rows,
        now: owed.now,
        rememberKeys,
        dueAt: owed.dueAt,
        handTo: takers.handTo,
        ...(span?.traceparent !== undefined && { traceparent: span.traceparent }),
      })
      .catch((error: unknown) => {
        takers.release();
        throw error;
      });
    this.takeOrWake(owed, stored, takers);
    if (span && !stored.inserted) {
      // A redelivery: its trace belongs with the first request's, whose trace the work is in.
      span.setAttribute(ATTR.redelivered, true);
      span.addLink(stored.trigger.traceparent);
    }
    return { accepted: stored.inserted, triggerId: stored.trigger.id };
  }

  /**
   * What a trigger owes as it is stored: its "received" messages and `alsoOwed` — only a private
   * notice when the access policy refuses the requester (stored all the same, so a retry is still
   * recognised), nothing while the requester is still to be cleared — and when it is due: a follow-up
   * waits for its source's window, to go to the run with the replies that follow it.
   */
  private owedFor(input: TriggerInput, alsoOwed: readonly NewOutboxRow[] | undefined, traceparent: string | undefined): Owed {
    const denied = this.deps.access?.deny(input);
    const uncleared = input.payload.checkRequester === true;
    const received: NewOutboxRow[] = denied ? [deniedNotice(input, denied)] : uncleared ? [] : receivedRows(input);
    const all = denied || uncleared || !alsoOwed ? received : [...received, ...alsoOwed];
    const rows = traceparent === undefined ? all : all.map((row) => ({ ...row, traceparent }));
    const now = this.deps.clock.now();
    const window = input.kind === 'followup' && !denied ? (this.deps.followupWindows?.[input.source] ?? 0) : 0;
    return { rows, now, dueAt: now + window };
  }

  /**
   * Who takes what was stored: each reserved worker what the store handed over to it; the intake and
   * outbox loops whatever nobody was handed (`onStored`, or `onOwed` when only messages were left),
   * and, for a trigger due later, the intake loops again once it is due rather than at their next poll.
   */
  private takeOrWake(owed: Owed, stored: EnqueueResult, takers: ReservedTakers): void {
    takers.settle(stored);
    if (!stored.inserted) return;
    if (!stored.handedOver) this.deps.onStored?.();
    else if (owed.rows.length > (stored.handedOverRow ? 1 : 0)) this.deps.onOwed?.();
    const waitMs = owed.dueAt - owed.now;
    if (waitMs > 0 && this.deps.onStored) this.deps.clock.setTimer(this.deps.onStored, waitMs);
  }

  /**
   * Stores messages owed to people outside any trigger (e.g. a chat's home view to publish when it is
   * opened, a link preview), once per key, then wakes the workers. Returns how many were new.
   */
  async owe(rows: readonly NewOutboxRow[]): Promise<number> {
    const added = await this.deps.store.outbox.add(rows, this.deps.clock.now());
    if (added > 0) this.deps.onStored?.();
    return added;
  }
}

/** What a trigger owes as it is stored (`IntakeService.owedFor`), and from when it may be worked. */
interface Owed {
  rows: NewOutboxRow[];
  now: number;
  dueAt: number;
}

/** The "received" messages a start owes at each of its destinations (none when another trigger's stand for it: `receivedAs`). */
export function receivedRows(input: TriggerInput): NewOutboxRow[] {
  if (input.kind !== 'start') return [];
  const payload = input.payload;
  if (payload.receivedAs !== undefined) return [];
  const requester = requesterName(payload.requester);
  return payload.destinations.map((destination) => {
    const message: OutboxMessage = {
      kind: 'received',
      title: payload.title,
      ...(requester && { requester }),
      ...(payload.reference !== undefined && { reference: payload.reference }),
      ...(payload.ticket !== undefined && { ticket: payload.ticket }),
    };
    return { key: receivedKey(input.key, destination), destination, kind: 'received', payload: message };
  });
}

/** The request's span says what it asked: its surface, place, person and trigger key (ids, never text). */
function describeRequest(span: TraceSpan, input: TriggerInput): TraceSpan {
  span.setAttribute(ATTR.surface, input.source);
  span.setAttribute(ATTR.place, input.anchor);
  span.setAttribute(ATTR.triggerKey, input.key);
  span.setAttribute(ATTR.triggerKind, input.kind);
  const person = input.payload.requester?.id;
  if (person !== undefined) span.setAttribute(ATTR.person, person);
  return span;
}

function validate(input: TriggerInput): void {
  if (!input.key) throw new InvalidTriggerError('a trigger needs a key');
  if (!input.anchor) throw new InvalidTriggerError(`trigger ${input.key} has no anchor`);
  if (input.kind === 'start') {
    if (!input.payload.prompt.trim()) throw new InvalidTriggerError(`trigger ${input.key} has an empty prompt`);
    if (input.payload.destinations.length === 0) throw new InvalidTriggerError(`trigger ${input.key} has nowhere to report`);
  }
  if (input.kind === 'followup' && !input.payload.message.trim()) throw new InvalidTriggerError(`trigger ${input.key} has an empty follow-up`);
}
