/**
 * The hand-over: a trigger this process stores, and the first message it owes, may go straight to one
 * of this process's free workers in the commit that stores them (`TriggerRepository.enqueue`'s
 * `handTo`), stored already claimed by it, instead of waiting for a worker's claim: a claim and a
 * commit saved each. What is not handed over waits for a claim, as everything did before.
 *
 * Who does what: the intake service reserves a `Taker` per thing being stored (`reserveTakers`) from a
 * `FreeWorkerSource` (the work loops' `loopReservations`, connected late through `FreeWorkers`); the
 * store hands over or not; each taker then takes what it was handed or is released. The worker behind
 * a taker (a `HandOverWorker`) keeps what it took, its lease renewed, until its next pass works it
 * (`WaitingWork`), and lets it go, pending again, when the loops stop first. docs/architecture.md §5
 * ("hand-over" in the glossary).
 */
import type { FreeWorker, OutboxRow, StoredTrigger } from '../ports/store.js';

/**
 * A worker of this process reserved for one thing being stored: the store may hand that thing over to
 * it in the commit that stores it, saving the claim a wake-up costs.
 */
export interface Taker<T> extends FreeWorker {
  /** The store handed it over (leased to `owner`): the worker takes it and its next pass works it. */
  take(handed: T): void;
  /** It did not (a known key, an earlier trigger or row in the way, a store that never does): free again. */
  release(): void;
}

export type TriggerTaker = Taker<StoredTrigger>;
export type RowTaker = Taker<OutboxRow>;

/** Free workers of this process, each reserved for one thing being stored; undefined when none is free. */
export interface FreeWorkerSource {
  intake(): TriggerTaker | undefined;
  outbox(): RowTaker | undefined;
}

/** What a worker offers to be handed work (`IntakeWorker` a trigger, `OutboxWorker` a row). */
export interface HandOverWorker<T> {
  readonly owner: string;
  readonly leaseMs: number;
  /** Something claimed for it (handed over, or claimed with its last delivery) waits for its next pass. */
  readonly hasWorkWaiting: boolean;
  /** Takes what the store handed over: the next pass works it without a claim. */
  take(handed: T): void;
  /** Gives back what waits and was not worked (the loops stopped first): pending again, for any worker at once. */
  letGo(): Promise<void>;
}
