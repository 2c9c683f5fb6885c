import type { Taker } from '../core/intake/intake-service.js';
import type { RunningLoop } from '../core/loop.js';
import type { Logger } from '../core/ports/logger.js';

/** What a chain's worker offers for a hand-over (`IntakeWorker` a trigger, `OutboxWorker` a row). */
export interface HandOverWorker<T> {
  readonly owner: string;
  readonly leaseMs: number;
  /** Something claimed for it (handed over, or claimed with its last piece of work) waits for its pass. */
  readonly holdsWork: boolean;
  hold(handed: T): void;
  /** Gives back what was handed over and not worked. */
  letGo(): Promise<void>;
}

export interface Reservations<T> {
  /** Whether loop `index` may be woken for other work or kept: no pass in flight, not kept, nothing waiting for it. */
  readonly free: (index: number) => boolean;
  /** Keeps the first free loop for one thing being stored (`Taker`); undefined when none is free. */
  readonly reserve: () => Taker<T> | undefined;
}

/**
 * Keeps free loops of a chain (`work-loops.ts`) for what the intake service is storing: the store may
 * hand it to the kept loop's worker in the commit that stores it, and that loop's next pass works it
 * without a claim. A kept loop is left alone by wake-ups until the store has answered.
 */
export function loopReservations<T>(
  loops: readonly RunningLoop[],
  workers: ReadonlyArray<HandOverWorker<T>>,
  options: { stopping: () => boolean; logger: Logger },
): Reservations<T> {
  const kept = new Set<number>();
  const free = (index: number) => !loops[index]?.busy && !kept.has(index) && !workers[index]?.holdsWork;
  return {
    free,
    reserve: () => {
      const index = workers.findIndex((_, candidate) => free(candidate));
      const worker = workers[index];
      const loop = loops[index];
      if (!worker || !loop) return undefined;
      kept.add(index);
      return {
        owner: worker.owner,
        leaseMs: worker.leaseMs,
        take: (handed) => {
          kept.delete(index);
          worker.hold(handed);
          // Stored while the loops stop: no pass will come, so it is given back now.
          if (options.stopping())
            return void worker.letGo().catch((error: unknown) => options.logger.warn({ err: error }, 'could not give back work handed over'));
          loop.wake();
        },
        release: () => void kept.delete(index),
      };
    },
  };
}
