import type { Clock } from '../core/ports/clock.js';
import type { WorkGate } from '../core/ports/work-gate.js';

/** How long a background pass may be held behind acknowledgements before it goes anyway. */
export const ACK_FIRST_MAX_WAIT_MS = 100;

/**
 * The `WorkGate` of the HTTP server: it counts the requests of acknowledging routes (webhooks a
 * platform retries when the answer is late) from their arrival until their answer is written or the
 * client goes, and holds background passes while any is in flight. The event loop is shared: a pass
 * started while a request waits for its store commit runs its synchronous steps (claims, commits,
 * JSON) ahead of that request's answer. Measured in docs/benchmarks.md ("Acknowledgements first").
 */
export class AckFirst implements WorkGate {
  private inFlight = 0;
  private waiters: Array<() => void> = [];

  constructor(
    private readonly clock: Clock,
    private readonly maxWaitMs = ACK_FIRST_MAX_WAIT_MS,
  ) {}

  /** Counts one request until the returned function is called (idempotent: call it on every way out). */
  begin(): () => void {
    this.inFlight++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.inFlight--;
      if (this.inFlight === 0) this.release();
    };
  }

  /** Requests being acknowledged right now. */
  get waiting(): number {
    return this.inFlight;
  }

  clear(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      let done = false;
      const go = () => {
        if (done) return;
        done = true;
        cancel();
        this.waiters = this.waiters.filter((waiter) => waiter !== go);
        resolve();
      };
      const cancel = this.clock.setTimer(go, this.maxWaitMs);
      this.waiters.push(go);
    });
  }

  private release(): void {
    const waiting = this.waiters;
    this.waiters = [];
    for (const go of waiting) go();
  }
}
