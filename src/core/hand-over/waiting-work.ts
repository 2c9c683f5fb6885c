/**
 * Work claimed for a worker before the pass that does it — handed over as it was stored, or claimed
 * with the worker's last delivery — with its lease renewed meanwhile: the pass may wait at the work
 * gate first, longer than a lease. One thing at a time.
 */
export class WaitingWork<T> {
  private waiting: { work: T; stopRenewing: () => void } | undefined;

  /**
   * `keepLease` starts renewing the lease of `work` and returns the stop; `nameOf` names a piece of
   * work in the error a second one raises.
   */
  constructor(
    private readonly owner: string,
    private readonly keepLease: (work: T) => () => void,
    private readonly nameOf: (work: T) => string,
  ) {}

  /** Whether something waits for the next pass. */
  get has(): boolean {
    return this.waiting !== undefined;
  }

  /** Keeps `work` for the next pass, its lease renewed from now on. A worker is given one at a time: a second is a bug. */
  keep(work: T): void {
    if (this.waiting) throw new Error(`${this.owner} already has ${this.nameOf(this.waiting.work)} waiting`);
    this.waiting = { work, stopRenewing: this.keepLease(work) };
  }

  /** Takes out what waits, for the pass that works it, with the stop of its lease's renewal. */
  next(): { work: T; stopRenewing: () => void } | undefined {
    const waiting = this.waiting;
    this.waiting = undefined;
    return waiting;
  }

  /** Gives back what waits and was not worked: its renewal stopped, `giveBack` frees it in the store. */
  async letGo(giveBack: (work: T) => Promise<unknown>): Promise<void> {
    const waiting = this.next();
    if (!waiting) return;
    waiting.stopRenewing();
    await giveBack(waiting.work);
  }
}
