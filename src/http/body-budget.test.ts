import { describe, expect, it } from 'vitest';
import { BodyBudget, DEFAULT_BODY_BUDGET } from './body-budget.js';

const KIB = 1024;
const MIB = 1024 * KIB;

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
    const budget = new BodyBudget(DEFAULT_BODY_BUDGET);
    for (let at = 0; at < held; at += MIB) expect(budget.reserve(MIB)).toBeDefined();
    expect(budget.reserve(asked) !== undefined).toBe(fits);
  });

  it('small bodies can use the whole budget, and no more', () => {
    const budget = new BodyBudget(DEFAULT_BODY_BUDGET);
    const holds = Array.from({ length: 512 }, () => budget.reserve(64 * KIB));
    expect(holds.every(Boolean)).toBe(true);
    expect(budget.held).toBe(32 * MIB);
    expect(budget.reserve(1)).toBeUndefined();
    holds[0]!.release();
    expect(budget.reserve(64 * KIB)).toBeDefined();
  });

  it('a hold grows as a body of unknown length arrives, as a big body once past the small size', () => {
    const budget = new BodyBudget({ totalBytes: 10 * KIB, smallBodyBytes: KIB, reservedForSmallBytes: 4 * KIB });
    const hold = budget.reserve(0)!;
    expect(hold.grow(KIB)).toBe(true);
    expect(hold.grow(5 * KIB)).toBe(true);
    expect(hold.bytes).toBe(6 * KIB);
    // 7 KiB would reach into the part kept for small bodies.
    expect(hold.grow(KIB)).toBe(false);
    expect(hold.bytes).toBe(6 * KIB);
    expect(budget.reserve(KIB)).toBeDefined();
  });

  it('a release gives back exactly what was held, once', () => {
    const budget = new BodyBudget(DEFAULT_BODY_BUDGET);
    const hold = budget.reserve(100)!;
    hold.grow(50);
    hold.release();
    hold.release();
    expect(budget.held).toBe(0);
    expect(hold.grow(10)).toBe(false);
    expect(budget.held).toBe(0);
  });
});
