/**
 * Keeping a claim while its work lasts: the intake worker's trigger during a slow run-API call, the
 * outbox's row during a slow platform call. A live worker's claim is never taken over however long
 * the call takes; a dead one's comes free through liveness, or when its lease runs out.
 */
import type { Clock } from './ports/clock.js';

export interface LeaseRenewal {
  /** Renews the lease from now; resolves whether this worker still holds the claim. */
  extend: () => Promise<boolean>;
  /** The claim was taken over: renewing stops. */
  lost: () => void;
  /** A renewal failed (the store could not be reached): resolves whether to try again a third of the lease later. */
  failed: (error: unknown) => boolean;
}

/** Renews the lease every third of `leaseMs` until the returned stop is called (call it on every way out). */
export function renewLease(clock: Clock, leaseMs: number, renewal: LeaseRenewal): () => void {
  let stopped = false;
  let cancel: (() => void) | undefined;
  const next = () => {
    cancel = clock.setTimer(
      () => {
        renewal.extend().then(
          (held) => {
            if (stopped) return;
            if (held) next();
            else renewal.lost();
          },
          (error: unknown) => {
            if (renewal.failed(error) && !stopped) next();
          },
        );
      },
      Math.floor(leaseMs / 3),
    );
  };
  next();
  return () => {
    stopped = true;
    cancel?.();
  };
}
