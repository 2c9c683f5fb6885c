/**
 * A process-wide budget for request bodies received but not yet verified (issue 16: a thousand
 * anonymous connections each holding 1 MiB took the service to 1 GB). Every body a route reads is
 * held against it while it arrives; a body that does not fit is refused at once (503, Retry-After)
 * instead of being buffered.
 *
 * Genuine Slack and Linear deliveries are small (well under 64 KiB), attacks that cost memory are
 * big: so the last part of the budget is kept for small bodies. Big bodies can fill the rest, never
 * that part, and a genuine delivery still gets through while hundreds of big bodies are held.
 */

const KIB = 1024;
const MIB = 1024 * KIB;

export interface BodyBudgetLimits {
  /** Bytes all bodies being received may hold together. */
  totalBytes: number;
  /** Bodies up to this size are normal-size (every genuine Slack and Linear delivery is). */
  smallBodyBytes: number;
  /** The part of `totalBytes` only normal-size bodies may use. */
  reservedForSmallBytes: number;
}

/** 32 MiB in all, of which 8 MiB (128 bodies of 64 KiB) only for normal-size bodies. */
export const DEFAULT_BODY_BUDGET: BodyBudgetLimits = { totalBytes: 32 * MIB, smallBodyBytes: 64 * KIB, reservedForSmallBytes: 8 * MIB };

/** One body's share of the budget. */
export interface BodyHold {
  /** Bytes held now. */
  readonly bytes: number;
  /** Holds `more` bytes on top (a body of unknown length, as it arrives); false when they do not fit. */
  grow(more: number): boolean;
  /** Gives the bytes back; later calls do nothing. */
  release(): void;
}

export class BodyBudget {
  private heldBytes = 0;

  constructor(private readonly limits: BodyBudgetLimits = DEFAULT_BODY_BUDGET) {}

  /** Bytes held by every body being received now. */
  get held(): number {
    return this.heldBytes;
  }

  /** Holds `bytes` for one body (its declared length, or 0 when unknown); undefined when they do not fit now. */
  reserve(bytes: number): BodyHold | undefined {
    if (!this.fits(0, bytes)) return undefined;
    this.heldBytes += bytes;
    let size = bytes;
    let released = false;
    return {
      get bytes() {
        return size;
      },
      grow: (more: number) => {
        if (released || !this.fits(size, size + more)) return false;
        this.heldBytes += more;
        size += more;
        return true;
      },
      release: () => {
        if (released) return;
        released = true;
        this.heldBytes -= size;
      },
    };
  }

  /** Whether a body holding `current` bytes may hold `next` instead. */
  private fits(current: number, next: number): boolean {
    const { totalBytes, smallBodyBytes, reservedForSmallBytes } = this.limits;
    const ceiling = next > smallBodyBytes ? totalBytes - reservedForSmallBytes : totalBytes;
    return this.heldBytes - current + next <= ceiling;
  }
}
