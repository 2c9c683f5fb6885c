/**
 * Failed sign-ins per key — a client address, or a browser someone signed in from before
 * (`limitKeyOf` in sign-in.ts says which and why): after `maxFailures` within `windowMs` the key waits
 * out the window. Memory is bounded (`maxKeys`): when full, the oldest entry goes, so a flood of addresses
 * costs a fixed amount of memory. In-process: each replica counts its own callers.
 */
export class AttemptLimiter {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly options: { maxFailures: number; windowMs: number; maxKeys: number } = { maxFailures: 5, windowMs: 5 * 60_000, maxKeys: 10_000 },
  ) {}

  /** Milliseconds until `key` may try again; 0 when it may now. */
  retryAfterMs(key: string, now: number): number {
    const recent = this.recent(key, now);
    if (recent.length < this.options.maxFailures) return 0;
    return Math.max(1, (recent[0] ?? now) + this.options.windowMs - now);
  }

  fail(key: string, now: number): void {
    const recent = this.recent(key, now);
    recent.push(now);
    this.failures.delete(key);
    this.failures.set(key, recent.slice(-this.options.maxFailures));
    if (this.failures.size > this.options.maxKeys) {
      const oldest = this.failures.keys().next().value;
      if (oldest !== undefined) this.failures.delete(oldest);
    }
  }

  succeed(key: string): void {
    this.failures.delete(key);
  }

  private recent(key: string, now: number): number[] {
    return (this.failures.get(key) ?? []).filter((at) => at > now - this.options.windowMs);
  }
}
