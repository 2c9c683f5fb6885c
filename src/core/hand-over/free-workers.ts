import type { EnqueueResult, FreeWorker } from '../ports/store.js';
import type { FreeWorkerSource, RowTaker, TriggerTaker } from './hand-over.js';

/**
 * The work loops' free workers for the intake service, which is built before the loops: none until
 * the loops are connected.
 */
export class FreeWorkers implements FreeWorkerSource {
  private source: FreeWorkerSource | undefined;

  intake(): TriggerTaker | undefined {
    return this.source?.intake();
  }

  outbox(): RowTaker | undefined {
    return this.source?.outbox();
  }

  /** From now on, free workers come from `source` (the work loops' `freeWorkers`). */
  connect(source: FreeWorkerSource): void {
    this.source = source;
  }
}

/** The takers reserved for one trigger being stored and the first message it owes (`reserveTakers`). */
export interface ReservedTakers {
  /** For `enqueue`'s `handTo`: undefined when no worker was free. */
  readonly handTo: { trigger?: FreeWorker; outbox?: FreeWorker } | undefined;
  /** The store answered: each taker takes what it was handed over, the others are free again. */
  settle(stored: Pick<EnqueueResult, 'trigger' | 'handedOver' | 'handedOverRow'>): void;
  /** Storing failed: every reserved worker is free again. */
  release(): void;
}

/**
 * Reserves a free intake worker for a trigger about to be stored and, when it owes messages
 * (`row`), a free outbox worker for the first of them; none without a `source` (a trigger due later,
 * a store that never hands over).
 */
export function reserveTakers(source: FreeWorkerSource | undefined, wanted: { row: boolean }): ReservedTakers {
  const trigger = source?.intake();
  const outbox = wanted.row ? source?.outbox() : undefined;
  return {
    handTo: trigger || outbox ? { trigger, outbox } : undefined,
    settle: (stored) => {
      if (stored.handedOver) trigger?.take(stored.trigger);
      else trigger?.release();
      if (stored.handedOverRow) outbox?.take(stored.handedOverRow);
      else outbox?.release();
    },
    release: () => {
      trigger?.release();
      outbox?.release();
    },
  };
}
