import { describe, expect, it } from 'vitest';
import { TestClock } from '../core/ports/clock.js';
import { BodyBudget, DEFAULT_BODY_BUDGET, type BodyBudgetLimits, type BodyClaim } from './body-budget.js';

const KIB = 1024;
const MIB = 1024 * KIB;

/** A claim from `source` that records its eviction in `evicted`. */
function claim(source: string, evicted: string[] = [], name = source): BodyClaim {
  return { source, evicted: () => evicted.push(name) };
}

/** The default budget with every source its own sender, unless said: the share does not get in the way. */
const everyone = (limits: Partial<BodyBudgetLimits> = {}): BodyBudgetLimits => ({ ...DEFAULT_BODY_BUDGET, sourceShare: 1, ...limits });

describe('BodyBudget', () => {
  it.each([
    // [what, bytes already held by big bodies, bytes asked, fits]
    ['a big body into an empty budget', 0, MIB, true],
    ['a big body up to the part kept for small ones', 23 * MIB, MIB, true],
    ['a big body into the part kept for small ones', 24 * MIB, MIB, false],
    ['a small body into the part kept for small ones', 24 * MIB, 64 * KIB, true],
    ['a body just over the small size is big', 24 * MIB, 64 * KIB + 1, false],
    ['an empty body (length unknown yet)', 24 * MIB, 0, true],
  ])('%s', (_what, held, asked, fits) => {
    const budget = new BodyBudget(DEFAULT_BODY_BUDGET, new TestClock());
    for (let at = 0; at < held; at += MIB) expect(budget.reserve(MIB, claim(`10.0.0.${at / MIB}`))).toBeDefined();
    expect(budget.reserve(asked, claim('10.0.1.1')) !== undefined).toBe(fits);
  });

  it('small bodies can use the whole budget, and no more', () => {
    const budget = new BodyBudget(everyone(), new TestClock());
    const holds = Array.from({ length: 512 }, (_, index) => budget.reserve(64 * KIB, claim(`10.0.${index >> 6}.${index & 63}`)));
    expect(holds.every(Boolean)).toBe(true);
    expect(budget.held).toBe(32 * MIB);
    expect(budget.reserve(1, claim('10.9.9.9'))).toBeUndefined();
    holds[0]!.release();
    expect(budget.reserve(64 * KIB, claim('10.9.9.9'))).toBeDefined();
  });

  it('a hold grows as a body of unknown length arrives, as a big body once past the small size', () => {
    const budget = new BodyBudget({ ...everyone(), totalBytes: 10 * KIB, smallBodyBytes: KIB, reservedForSmallBytes: 4 * KIB }, new TestClock());
    const hold = budget.reserve(0, claim('a'))!;
    expect(hold.arrived(KIB)).toBe(true);
    expect(hold.arrived(6 * KIB)).toBe(true);
    expect(hold.bytes).toBe(6 * KIB);
    // 7 KiB would reach into the part kept for small bodies.
    expect(hold.arrived(7 * KIB)).toBe(false);
    expect(hold.bytes).toBe(6 * KIB);
    expect(budget.reserve(KIB, claim('b'))).toBeDefined();
  });

  it('a release gives back exactly what was held, once', () => {
    const budget = new BodyBudget(DEFAULT_BODY_BUDGET, new TestClock());
    const hold = budget.reserve(100, claim('a'))!;
    hold.arrived(150);
    hold.release();
    hold.release();
    expect(budget.held).toBe(0);
    expect(budget.heldBy('a')).toBe(0);
    expect(hold.arrived(160)).toBe(false);
    expect(budget.held).toBe(0);
  });
});

describe('one source holds at most its share', () => {
  it('an eighth of the budget, of which an eighth of the part kept for small bodies: three big bodies of 1 MiB, or 4 MiB of small ones', () => {
    const budget = new BodyBudget(DEFAULT_BODY_BUDGET, new TestClock());
    for (let index = 0; index < 3; index++) expect(budget.reserve(MIB, claim('203.0.113.7'))).toBeDefined();
    expect(budget.reserve(MIB, claim('203.0.113.7'))).toBeUndefined();
    // Another source is not held back by it.
    expect(budget.reserve(MIB, claim('203.0.113.8'))).toBeDefined();
    // The source's last eighth of the share is for its small bodies: 16 of 64 KiB, no more.
    for (let index = 0; index < 16; index++) expect(budget.reserve(64 * KIB, claim('203.0.113.7'))).toBeDefined();
    expect(budget.reserve(64 * KIB, claim('203.0.113.7'))).toBeUndefined();
    expect(budget.heldBy('203.0.113.7')).toBe(4 * MIB);
  });

  it('a body over its source’s share takes the room of that source’s bodies behind the healthy pace, not of another’s', async () => {
    const clock = new TestClock();
    const budget = new BodyBudget(DEFAULT_BODY_BUDGET, clock);
    const evicted: string[] = [];
    const trickling = [0, 1, 2].map((index) => budget.reserve(MIB, claim('198.51.100.1', evicted, `trickle ${index}`))!);
    const other = budget.reserve(MIB, claim('198.51.100.2', evicted, 'other source'))!;
    // The second one keeps the healthy pace: 64 KiB/s after the first second.
    await clock.advance(3_000);
    trickling[1]!.arrived(200 * KIB);
    other.arrived(1);
    const next = budget.reserve(MIB, claim('198.51.100.1', evicted, 'next'));
    expect(next).toBeDefined();
    expect(evicted).toEqual(['trickle 0']);
    expect(budget.heldBy('198.51.100.1')).toBe(3 * MIB);
  });
});

describe('a body that needs room takes it from bodies behind the healthy pace', () => {
  /** A budget filled by 32 trickling bodies of 1 MiB (the big part) and 128 of 64 KiB (the part kept for small ones), each from its own source. */
  function filledByTrickles() {
    const clock = new TestClock();
    const budget = new BodyBudget(DEFAULT_BODY_BUDGET, clock);
    const evicted: string[] = [];
    const big = Array.from({ length: 24 }, (_, index) => budget.reserve(MIB, claim(`10.1.0.${index}`, evicted, `big ${index}`))!);
    const small = Array.from({ length: 128 }, (_, index) => budget.reserve(64 * KIB, claim(`10.2.0.${index}`, evicted, `small ${index}`))!);
    expect([...big, ...small].every(Boolean)).toBe(true);
    expect(budget.held).toBe(32 * MIB);
    return { clock, budget, evicted, big, small };
  }

  it('within their first second they keep their room: a new body is refused', async () => {
    const { clock, budget, evicted } = filledByTrickles();
    await clock.advance(900);
    expect(budget.reserve(4 * KIB, claim('192.0.2.1'))).toBeUndefined();
    expect(evicted).toEqual([]);
  });

  it('past it, the one most behind gives its room, is told, and its bytes are given back at once', async () => {
    const { clock, budget, evicted, big, small } = filledByTrickles();
    await clock.advance(5_000);
    // A byte every few seconds moves a body's pace deadline by a few hundredths of a millisecond; one sent nothing.
    for (const hold of [...big, ...small]) if (hold !== small[7]) hold.arrived(1);
    const genuine = budget.reserve(4 * KIB, claim('192.0.2.1'));
    expect(genuine).toBeDefined();
    expect(evicted).toEqual(['small 7']);
    expect(budget.held).toBe(32 * MIB - 64 * KIB + 4 * KIB);
    // A big one needs the room of a big one, or of sixteen small ones: the most behind, whatever their size.
    expect(budget.reserve(MIB, claim('192.0.2.2'))).toBeDefined();
    expect(evicted.length).toBeGreaterThan(1);
  });

  it('a body that keeps the healthy pace keeps its room', async () => {
    const { clock, budget, evicted, big, small } = filledByTrickles();
    await clock.advance(1_500);
    // Every one of them is ahead of 64 KiB/s after its first second.
    for (const hold of big) hold.arrived(MIB - 1);
    for (const hold of small) hold.arrived(64 * KIB - 1);
    expect(budget.reserve(4 * KIB, claim('192.0.2.1'))).toBeUndefined();
    expect(evicted).toEqual([]);
  });

  it('a small body already complete when it is read is held even when nothing can make room', () => {
    const { budget, evicted } = filledByTrickles();
    const complete = budget.reserve(4 * KIB, { source: '192.0.2.1', complete: true });
    expect(complete).toBeDefined();
    expect(complete!.arrived(4 * KIB)).toBe(true);
    expect(evicted).toEqual([]);
    complete!.release();
    expect(budget.held).toBe(32 * MIB);
    // A big one is not: its bytes cannot all be in memory yet.
    expect(budget.reserve(MIB, { source: '192.0.2.1', complete: true })).toBeUndefined();
  });
});
