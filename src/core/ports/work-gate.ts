/**
 * Acknowledgements first (issue 26): background work asks the gate before each pass, and the gate
 * holds it while requests that a platform waits on (a webhook to acknowledge) are being answered.
 * Work never starves: a pass is held at most a bounded time (the adapter's `maxWaitMs`), so under a
 * flood that never pauses the work still advances, only slower.
 */
export interface WorkGate {
  /** Resolves when no acknowledgement is waiting, or when the longest hold has passed. */
  clear(): Promise<void>;
}

/** A gate that never holds (no HTTP server, tests of the workers alone). */
export const openGate: WorkGate = { clear: () => Promise.resolve() };
