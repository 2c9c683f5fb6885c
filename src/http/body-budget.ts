/**
 * A process-wide budget for request bodies received but not yet verified (a thousand anonymous
 * connections each holding 1 MiB once took the service to 1 GB). Every body a route reads is held
 * against it while it arrives; a body that does not fit is refused at once (503, Retry-After)
 * instead of being buffered.
 *
 * Genuine deliveries are small (well under 64 KiB) and arrive at once; attacks that cost memory are
 * big, or slow: a trickle of a byte every few seconds holds what its body declared for as long as
 * it goes on. So:
 * - the last part of the budget is kept for small bodies: big ones fill the rest, never that part;
 * - one source (`bodySource`) may hold only its share of the budget, and of the part kept for
 *   small bodies, so that one sender cannot fill either;
 * - a body that does not fit takes the room of bodies behind the healthy pace (`HEALTHY_BODY_PACE`),
 *   the most behind first — of its own source for the share, of any source for the budget — which
 *   are told (`evicted`) and answered 503;
 * - a small body already complete when it is read is never refused: its bytes are in memory
 *   already, and it is given back within the same turn.
 */
import { systemClock, type Clock } from '../core/ports/clock.js';
import { HEALTHY_BODY_PACE, paceDeadline, type BodyPace } from './body-pace.js';

const KIB = 1024;
const MIB = 1024 * KIB;

export interface BodyBudgetLimits {
  /** Bytes all bodies being received may hold together. */
  totalBytes: number;
  /** Bodies up to this size are normal-size (every genuine Slack, Linear, GitHub and Jira delivery is). */
  smallBodyBytes: number;
  /** The part of `totalBytes` only normal-size bodies may use. */
  reservedForSmallBytes: number;
  /** The fraction of `totalBytes`, and of `reservedForSmallBytes`, the bodies of one source may hold. */
  sourceShare: number;
  /** A body behind this pace gives its room to a body that needs it. */
  healthyPace: BodyPace;
}

/**
 * 32 MiB in all, of which 8 MiB (128 bodies of 64 KiB) only for normal-size bodies; one source at
 * most an eighth of each (4 MiB, of which 1 MiB only for normal-size bodies: three bodies of 1 MiB).
 */
export const DEFAULT_BODY_BUDGET: BodyBudgetLimits = {
  totalBytes: 32 * MIB,
  smallBodyBytes: 64 * KIB,
  reservedForSmallBytes: 8 * MIB,
  sourceShare: 1 / 8,
  healthyPace: HEALTHY_BODY_PACE,
};

/** What the budget is told about a body it is asked to hold. */
export interface BodyClaim {
  /** Who sends it (`bodySource`): what one source's bodies hold together is limited to its share. */
  source: string;
  /** Its bytes have all arrived already: a small one is held whatever the budget holds. */
  complete?: boolean;
  /** Its room was given to another body (its bytes are given back already): stop reading it. */
  evicted?: () => void;
}

/** One body's share of the budget. */
export interface BodyHold {
  /** Bytes held now. */
  readonly bytes: number;
  /** Records that `total` bytes of the body have arrived (its pace), holding more once they pass what is held; false when that does not fit. */
  arrived(total: number): boolean;
  /** Gives the bytes back; later calls do nothing. */
  release(): void;
}

interface Holding {
  readonly source: string;
  readonly startedAt: number;
  bytes: number;
  received: number;
  released: boolean;
  /** Complete and small when reserved: it never waits for room (`BodyClaim.complete`). */
  readonly alreadyHere: boolean;
  readonly evicted: (() => void) | undefined;
}

export class BodyBudget {
  private heldBytes = 0;
  private readonly holdings = new Set<Holding>();
  private readonly bySource = new Map<string, number>();

  /** `clock`: the pace of bodies is measured on it (the HTTP server's, which times their stalls too). */
  constructor(
    private readonly limits: BodyBudgetLimits = DEFAULT_BODY_BUDGET,
    private readonly clock: Pick<Clock, 'now'> = systemClock,
  ) {}

  /** Bytes held by every body being received now. */
  get held(): number {
    return this.heldBytes;
  }

  /** Bytes held by the bodies of one source. */
  heldBy(source: string): number {
    return this.bySource.get(source) ?? 0;
  }

  /** Holds `bytes` for one body (its declared length, or 0 when unknown); undefined when they do not fit now. */
  reserve(bytes: number, claim: BodyClaim): BodyHold | undefined {
    const alreadyHere = claim.complete === true && bytes <= this.limits.smallBodyBytes;
    const holding: Holding = { source: claim.source, startedAt: this.clock.now(), bytes: 0, received: 0, released: false, alreadyHere, evicted: claim.evicted };
    if (!alreadyHere && !this.makeRoom(holding, bytes)) return undefined;
    this.holdings.add(holding);
    this.take(holding, bytes);
    return {
      get bytes() {
        return holding.bytes;
      },
      arrived: (total: number) => {
        if (holding.released) return false;
        holding.received = total;
        if (total <= holding.bytes) return true;
        const free = holding.alreadyHere && total <= this.limits.smallBodyBytes;
        if (!free && !this.makeRoom(holding, total)) return false;
        this.take(holding, total - holding.bytes);
        return true;
      },
      release: () => this.giveBack(holding),
    };
  }

  /**
   * Whether `holding` may hold `next` bytes instead of what it holds, once the bodies behind the
   * healthy pace that stand in its way are evicted (they are, only if that is enough).
   */
  private makeRoom(holding: Holding, next: number): boolean {
    const { totalBytes, reservedForSmallBytes, sourceShare } = this.limits;
    const share = { totalBytes: totalBytes * sourceShare, reservedForSmallBytes: reservedForSmallBytes * sourceShare };
    let sourceHeld = this.heldBy(holding.source) - holding.bytes;
    if (this.fits(sourceHeld, next, share) && this.fits(this.heldBytes - holding.bytes, next, this.limits)) return true;
    const behind = this.behindPace(holding);
    const evict = new Set<Holding>();
    for (const other of behind) {
      if (this.fits(sourceHeld, next, share)) break;
      if (other.source !== holding.source) continue;
      evict.add(other);
      sourceHeld -= other.bytes;
    }
    if (!this.fits(sourceHeld, next, share)) return false;
    let held = this.heldBytes - holding.bytes - sum(evict);
    for (const other of behind) {
      if (this.fits(held, next, this.limits)) break;
      if (evict.has(other)) continue;
      evict.add(other);
      held -= other.bytes;
    }
    if (!this.fits(held, next, this.limits)) return false;
    for (const other of evict) {
      this.giveBack(other);
      other.evicted?.();
    }
    return true;
  }

  /** Whether a body of `next` bytes fits beside `held` bytes of others under `limits` (a big one never into the part kept for small ones). */
  private fits(held: number, next: number, limits: Pick<BodyBudgetLimits, 'totalBytes' | 'reservedForSmallBytes'>): boolean {
    const ceiling = next > this.limits.smallBodyBytes ? limits.totalBytes - limits.reservedForSmallBytes : limits.totalBytes;
    return held + next <= ceiling;
  }

  /** The bodies other than `holding` that hold bytes and are behind the healthy pace, the most behind first. */
  private behindPace(holding: Holding): Holding[] {
    const now = this.clock.now();
    const behind: Array<{ other: Holding; lag: number }> = [];
    for (const other of this.holdings) {
      const lag = now - paceDeadline(other.startedAt, other.received, this.limits.healthyPace);
      if (other !== holding && other.bytes > 0 && lag > 0) behind.push({ other, lag });
    }
    return behind.sort((a, b) => b.lag - a.lag).map(({ other }) => other);
  }

  private take(holding: Holding, more: number): void {
    holding.bytes += more;
    this.heldBytes += more;
    this.bySource.set(holding.source, this.heldBy(holding.source) + more);
  }

  private giveBack(holding: Holding): void {
    if (holding.released) return;
    holding.released = true;
    this.holdings.delete(holding);
    this.heldBytes -= holding.bytes;
    const left = this.heldBy(holding.source) - holding.bytes;
    // A source that holds nothing is forgotten: the map never grows with the number of senders seen.
    if (left > 0) this.bySource.set(holding.source, left);
    else this.bySource.delete(holding.source);
  }
}

const sum = (holdings: Set<Holding>) => [...holdings].reduce((total, holding) => total + holding.bytes, 0);
