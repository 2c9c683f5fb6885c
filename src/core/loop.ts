import type { Clock } from './ports/clock.js';
import type { Logger } from './ports/logger.js';
import type { WorkGate } from './ports/work-gate.js';

export interface LoopOptions {
  name: string;
  clock: Clock;
  logger: Logger;
  /** Wait between passes when there was nothing to do. */
  idleMs: number;
  /**
   * False: after a pass with nothing to do, wait for a wake instead of `idleMs` (another loop polls
   * for both, and wakes this one when there is work). Default true.
   */
  poll?: boolean;
  /** Wait after a pass threw (the error is logged, the loop goes on). */
  errorBackoffMs?: number;
  /**
   * One pass of work. Resolves true when it did something and more may be waiting (the loop goes
   * again at once), false when idle.
   */
  work: () => Promise<boolean>;
  /** Asked before each pass: holds the pass while acknowledgements are being answered (acks first). */
  gate?: WorkGate;
}

export interface RunningLoop {
  /** Runs a pass now instead of waiting out the idle time (e.g. a trigger was just stored). */
  wake(): void;
  /** True while a pass is in flight (a wake then waits for its end). */
  readonly busy: boolean;
  /** Stops after the pass in flight; resolves when it has finished. */
  stop(): Promise<void>;
}

/**
 * Drives a worker in the background: pass after pass while there is work, then a timer from the
 * injected clock. Errors are caught and logged; a loop never dies and never overlaps itself.
 */
export function startLoop(options: LoopOptions): RunningLoop {
  let stopped = false;
  let running: Promise<void> | undefined;
  let cancelTimer: (() => void) | undefined;
  let wakeRequested = false;

  const schedule = (ms: number) => {
    cancelTimer?.();
    cancelTimer = options.clock.setTimer(() => {
      cancelTimer = undefined;
      run();
    }, ms);
  };

  const run = () => {
    if (stopped) return;
    if (running) {
      // A wake during a pass: go again right after it instead of waiting out the idle time.
      wakeRequested = true;
      return;
    }
    cancelTimer?.();
    cancelTimer = undefined;
    running = (async () => {
      // undefined: wait for a wake.
      let next: number | undefined = options.poll === false ? undefined : options.idleMs;
      try {
        wakeRequested = false;
        await options.gate?.clear();
        if (stopped) return;
        const more = await options.work();
        if (more || wakeRequested) next = 0;
      } catch (error) {
        options.logger.error({ err: error, loop: options.name }, `${options.name} failed; retrying`);
        next = options.errorBackoffMs ?? options.idleMs;
      } finally {
        running = undefined;
      }
      if (stopped) return;
      if (next === 0) setImmediate(run);
      else if (next !== undefined) schedule(next);
    })();
  };

  // Many wakes in one turn (a burst of stored triggers) are one pass, not one pass each.
  let wakePending = false;
  const wake = () => {
    if (stopped || wakePending) return;
    wakePending = true;
    setImmediate(() => {
      wakePending = false;
      run();
    });
  };

  wake();
  return {
    wake,
    get busy() {
      return running !== undefined;
    },
    stop: async () => {
      stopped = true;
      cancelTimer?.();
      await running;
    },
  };
}
