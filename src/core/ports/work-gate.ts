/**
 * Acknowledgements first: background work asks the gate before each pass, and the gate
 * holds it while requests that a platform waits on (a webhook to acknowledge) are being answered.
 * Work never starves: held passes still go, one at a time at a bounded rate, so under a flood that
 * never pauses the work still advances, only slower.
 */
export interface WorkGate {
  /** Resolves when no acknowledgement is waiting, or when this pass's turn among the held ones comes. */
  clear(): Promise<void>;
}

/** A gate that never holds (no HTTP server, tests of the workers alone). */
export const openGate: WorkGate = { clear: () => Promise.resolve() };
