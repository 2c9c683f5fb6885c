/**
 * What this process's outbox workers recently delivered, by outbox key: the results later rows of a
 * destination ask for (`Delivery.resultOf`, e.g. the status message's ts that every edit needs), so a
 * delivery need not read them back from the store. Safe to trust: a sent row is final (nothing turns
 * it back to pending or changes its result, and outbox rows are never deleted), so a result recorded
 * here is what the store holds. A result this process did not record (another replica delivered it,
 * or it was sent before a restart) is read from the store as before.
 */
export class SentResults {
  /** As JSON: each lookup parses its own copy, which costs less than `structuredClone` of the object. */
  private readonly results = new Map<string, string>();

  /** Keeps at most `capacity` results, forgetting the oldest first. */
  constructor(private readonly capacity = 10_000) {}

  /** Records a row's result once its `markSent` succeeded, as the store returns it (JSON). */
  record(key: string, result: unknown): void {
    this.results.delete(key);
    this.results.set(key, JSON.stringify(result ?? null));
    if (this.results.size > this.capacity) this.results.delete(this.results.keys().next().value as string);
  }

  /** Whether a result is known for `key`, and which (a copy, so a caller cannot change it for others). */
  lookup(key: string): { found: true; result: unknown } | { found: false } {
    const text = this.results.get(key);
    if (text === undefined) return { found: false };
    return { found: true, result: JSON.parse(text) as unknown };
  }
}
