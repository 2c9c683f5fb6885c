import type { Clock } from '../core/ports/clock.js';
import type { WorkGate } from '../core/ports/work-gate.js';

/**
 * While acknowledgements are waiting, held background passes go one at a time, this far apart: work
 * still advances under a flood that never pauses (about 100 passes a second, each a trigger worked
 * or a message delivered), and acknowledging keeps the rest of the event loop.
 */
export const ACK_FIRST_SPACING_MS = 10;

/**
 * The `WorkGate` of the HTTP server: it counts the requests of acknowledging routes (webhooks a
 * platform retries when the answer is late) from their arrival until their answer is written or the
 * client goes, and holds background passes while any is in flight. The event loop is shared: a pass
 * started while a request waits for its store commit runs its synchronous steps (claims, commits,
 * JSON) ahead of that request's answer. Measured in docs/benchmarks.md ("Acknowledgements first").
 */
export class AckFirst implements WorkGate {
  private inFlight = 0;
  private held: Array<() => void> = [];
  private cancelRelease: (() => void) | undefined;
  /** Held passes are being let go one a turn, nothing being in flight (`releaseAll`). */
  private draining = false;

  constructor(
    private readonly clock: Clock,
    private readonly spacingMs = ACK_FIRST_SPACING_MS,
  ) {}

  /** Counts one request until the returned function is called (idempotent: call it on every way out). */
  begin(): () => void {
    this.inFlight++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.inFlight--;
      if (this.inFlight === 0) this.releaseAll();
    };
  }

  /** Requests being acknowledged right now. */
  get waiting(): number {
    return this.inFlight;
  }

  clear(): Promise<void> {
    if (this.inFlight === 0 && !this.draining) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.held.push(resolve);
      if (this.inFlight > 0) this.cancelRelease ??= this.clock.setTimer(() => this.releaseOne(), this.spacingMs);
    });
  }

  private releaseOne(): void {
    this.cancelRelease = undefined;
    this.held.shift()?.();
    if (this.held.length > 0) this.cancelRelease = this.clock.setTimer(() => this.releaseOne(), this.spacingMs);
  }

  /**
   * Nothing in flight: the held passes go one a turn of the event loop, not all in one, so a request
   * that arrives meanwhile is read between them instead of behind all of their synchronous steps; once
   * one does, the rest go at the held pace again.
   */
  private releaseAll(): void {
    this.cancelRelease?.();
    this.cancelRelease = undefined;
    if (this.draining) return;
    this.draining = true;
    const next = () => {
      if (this.inFlight > 0 || this.held.length === 0) {
        this.draining = false;
        if (this.held.length > 0) this.cancelRelease ??= this.clock.setTimer(() => this.releaseOne(), this.spacingMs);
        return;
      }
      this.held.shift()?.();
      setImmediate(next);
    };
    next();
  }
}
