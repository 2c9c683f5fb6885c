/**
 * A bounded cache of answers that go stale, on the injected clock: what a platform said about who may
 * act (an issue tracker's permission, a person's role) is asked once per key in a while, not once per
 * request, and a burst of requests from one person shares one question.
 */
export interface AnswerCacheOptions {
  /** How long an answer is used before it is asked again. */
  ttlMs: number;
  /** At most this many answers are kept; the oldest go first. */
  maxEntries: number;
  now: () => number;
}

export class AnswerCache<T> {
  private readonly answers = new Map<string, { at: number; value: Promise<T> }>();

  constructor(private readonly options: AnswerCacheOptions) {}

  /** The answer for `key`: a fresh one kept here, else `ask()`'s. A question under way is shared; a failed one is not kept. */
  get(key: string, ask: () => Promise<T>): Promise<T> {
    const now = this.options.now();
    const kept = this.answers.get(key);
    if (kept && now - kept.at < this.options.ttlMs) return kept.value;
    this.answers.delete(key);
    const value = ask();
    this.answers.set(key, { at: now, value });
    value.catch(() => {
      if (this.answers.get(key)?.value === value) this.answers.delete(key);
    });
    // Maps iterate in insertion order, and a renewed answer was deleted first: the first key is the oldest.
    while (this.answers.size > this.options.maxEntries) {
      const oldest = this.answers.keys().next().value;
      if (oldest === undefined) break;
      this.answers.delete(oldest);
    }
    return value;
  }

  /** How many answers are kept (for tests). */
  get size(): number {
    return this.answers.size;
  }
}
