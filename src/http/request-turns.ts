/**
 * Starts request handlers one per turn of the event loop, in the order the requests arrived.
 *
 * Why: libuv accepts one new connection per turn of the loop (it stopped accepting in a loop in
 * libuv 1.45, libuv/libuv#3696; Node 20 ships 1.46). A server that handles every ready request within
 * the turn that read it makes its turns as long as the load is heavy — 100 busy keep-alive connections
 * made turns of 50–100 ms — so a connection opened under that load waited in the kernel's accept queue
 * for seconds (measured: 3 s, the length of the flood; docs/benchmarks.md, "Acknowledgements under
 * load"). One handler a turn keeps turns short, so new connections are accepted, and every request
 * waits its turn behind those that came before it rather than behind whoever is busiest.
 */
export class RequestTurns {
  private readonly queue: Array<() => void> = [];
  private scheduled = false;

  /** `nextTurn` runs its callback in a later turn of the event loop (default `setImmediate`). */
  constructor(private readonly nextTurn: (run: () => void) => void = (run) => setImmediate(run)) {}

  /** Runs `start` in a later turn, after every start queued before it. `start` must not throw. */
  enqueue(start: () => void): void {
    this.queue.push(start);
    this.schedule();
  }

  /** Starts waiting for their turn. */
  get waiting(): number {
    return this.queue.length;
  }

  private schedule(): void {
    if (this.scheduled || this.queue.length === 0) return;
    this.scheduled = true;
    this.nextTurn(() => this.startNext());
  }

  private startNext(): void {
    this.scheduled = false;
    const start = this.queue.shift();
    // Scheduled before the start runs: a start that throws despite its contract stalls no one behind it.
    this.schedule();
    start?.();
  }
}
