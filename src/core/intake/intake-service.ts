import type { Clock } from '../ports/clock.js';
import { deniedNotice, type AccessPolicy } from '../ports/intake.js';
import { receivedKey, type OutboxMessage } from '../ports/messages.js';
import type { FreeWorker, NewOutboxRow, OutboxRow, Store, StoredTrigger } from '../ports/store.js';
import { requesterName, type TriggerInput } from '../ports/triggers.js';

/** A trigger an edge tried to submit that breaks the core's rules: a bug at the edge, not bad user input. */
export class InvalidTriggerError extends Error {
  override readonly name = 'InvalidTriggerError';
}

/**
 * A worker of this process kept free for what is being stored (`IntakeService`): the store may hand
 * it over in the commit that stores it (`TriggerRepository.enqueue`), saving the claim a wake-up costs.
 */
export interface Taker<T> extends FreeWorker {
  /** The store handed it over (leased to `owner`): work it. */
  take(handed: T): void;
  /** It did not (a known key, an earlier trigger or row in the way, a store that never does): free again. */
  release(): void;
}

export type TriggerTaker = Taker<StoredTrigger>;
export type RowTaker = Taker<OutboxRow>;

/** Free workers of this process, each kept for one thing being stored; undefined when none is free. */
export interface FreeWorkerSource {
  intake(): TriggerTaker | undefined;
  outbox(): RowTaker | undefined;
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
      /** Free workers to hand a trigger due now and its first message to (`Taker`). */
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
   */
  async submit(
    input: TriggerInput,
    options: { rememberKeys?: readonly string[]; alsoOwed?: readonly NewOutboxRow[] } = {},
  ): Promise<{ accepted: boolean; triggerId: number }> {
    validate(input);
    const denied = this.deps.access?.deny(input);
    // A requester still to be cleared is owed nothing yet: the worker owes it once they are.
    const uncleared = input.payload.checkRequester === true;
    const owed: NewOutboxRow[] = denied ? [deniedNotice(input, denied)] : uncleared ? [] : receivedRows(input);
    const now = this.deps.clock.now();
    const window = input.kind === 'followup' && !denied ? (this.deps.followupWindows?.[input.source] ?? 0) : 0;
    const rows = denied || uncleared || !options.alsoOwed ? owed : [...owed, ...options.alsoOwed];
    const free = window === 0 ? this.deps.freeWorkers : undefined;
    const takers = { trigger: free?.intake(), outbox: rows.length > 0 ? free?.outbox() : undefined };
    const release = () => {
      takers.trigger?.release();
      takers.outbox?.release();
    };
    const handTo = takers.trigger || takers.outbox ? takers : undefined;
    const stored = await this.deps.store.triggers
      .enqueue({ trigger: input, owed: rows, now, rememberKeys: options.rememberKeys, dueAt: now + window, handTo })
      .catch((error: unknown) => {
        release();
        throw error;
      });
    const { inserted, trigger, handedOver, handedOverRow } = stored;
    if (handedOver) takers.trigger?.take(trigger);
    else takers.trigger?.release();
    if (handedOverRow) takers.outbox?.take(handedOverRow);
    else takers.outbox?.release();
    if (inserted && !handedOver) this.deps.onStored?.();
    else if (inserted && rows.length > (handedOverRow ? 1 : 0)) this.deps.onOwed?.();
    // Stored due later: wake the workers when it is due rather than at their next idle poll.
    if (inserted && window > 0 && this.deps.onStored) this.deps.clock.setTimer(this.deps.onStored, window);
    return { accepted: inserted, triggerId: trigger.id };
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

function validate(input: TriggerInput): void {
  if (!input.key) throw new InvalidTriggerError('a trigger needs a key');
  if (!input.anchor) throw new InvalidTriggerError(`trigger ${input.key} has no anchor`);
  if (input.kind === 'start') {
    if (!input.payload.prompt.trim()) throw new InvalidTriggerError(`trigger ${input.key} has an empty prompt`);
    if (input.payload.destinations.length === 0) throw new InvalidTriggerError(`trigger ${input.key} has nowhere to report`);
  }
  if (input.kind === 'followup' && !input.payload.message.trim()) throw new InvalidTriggerError(`trigger ${input.key} has an empty follow-up`);
}
