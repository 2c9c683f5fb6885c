import type { RunningLoop } from '../loop.js';
import type { Logger } from '../ports/logger.js';
import type { HandOverWorker, Taker } from './hand-over.js';

/** A chain's free loops, as the hand-over sees them. */
export interface Reservations<T> {
  /** Whether loop `index` may be woken for other work or reserved: no pass in flight, not reserved, nothing waiting for it. */
  readonly free: (index: number) => boolean;
  /** Reserves the first free loop for one thing being stored (`Taker`); undefined when none is free or the loops are stopping. */
  readonly reserve: () => Taker<T> | undefined;
}

/**
 * Reserves free loops of a chain (`compose/work-loops.ts`) for what the intake service is storing:
 * the store may hand it over to the reserved loop's worker in the commit that stores it, and that
 * loop's next pass works it without a claim. A reserved loop is left alone by wake-ups until the
 * store has answered.
 */
export function loopReservations<T>(
  loops: readonly RunningLoop[],
  workers: ReadonlyArray<HandOverWorker<T>>,
  options: { stopping: () => boolean; logger: Logger },
): Reservations<T> {
  const reserved = new Set<number>();
  const free = (index: number) => !loops[index]?.busy && !reserved.has(index) && !workers[index]?.hasWorkWaiting;
  return {
    free,
    reserve: () => {
      if (options.stopping()) return undefined;
      const index = workers.findIndex((_, candidate) => free(candidate));
      const worker = workers[index];
      const loop = loops[index];
      if (!worker || !loop) return undefined;
      reserved.add(index);
      return {
        owner: worker.owner,
        leaseMs: worker.leaseMs,
        take: (handed) => {
          reserved.delete(index);
          worker.take(handed);
          // Stored while the loops stop: no pass will come, so it is given back now.
          if (options.stopping())
            return void worker.letGo().catch((error: unknown) => options.logger.warn({ err: error }, 'could not give back work handed over'));
          loop.wake();
        },
        release: () => void reserved.delete(index),
      };
    },
  };
}
