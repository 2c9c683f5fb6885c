import { describe, expect, it } from 'vitest';
import { TestClock } from './ports/clock.js';
import { renewLease } from './lease-renewal.js';

const LEASE = 30_000;
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A renewal whose answers the test chooses, recording when it was asked and what it was told. */
function recording(clock: TestClock, answers: Array<boolean | Error>, retryAfterFailure: boolean) {
  const seen = { extended: [] as number[], lost: 0, failed: 0 };
  const renewal = {
    extend: () => {
      seen.extended.push(clock.now());
      const answer = answers.shift() ?? true;
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
    },
    lost: () => void seen.lost++,
    failed: () => (seen.failed++, retryAfterFailure),
  };
  return { seen, renewal };
}

async function advanceThirds(clock: TestClock, thirds: number): Promise<void> {
  for (let step = 0; step < thirds; step++) {
    await clock.advance(LEASE / 3);
    await settle();
  }
}

describe('renewLease', () => {
  it('renews every third of the lease while the work lasts, and not after the stop', async () => {
    const clock = new TestClock();
    const { seen, renewal } = recording(clock, [], false);
    const start = clock.now();
    const stop = renewLease(clock, LEASE, renewal);
    await advanceThirds(clock, 3);
    expect(seen.extended.map((at) => at - start)).toEqual([LEASE / 3, (2 * LEASE) / 3, LEASE]);
    stop();
    await advanceThirds(clock, 3);
    expect(seen.extended).toHaveLength(3);
  });

  it('stops renewing once the claim was taken over, and says so once', async () => {
    const clock = new TestClock();
    const { seen, renewal } = recording(clock, [true, false], false);
    renewLease(clock, LEASE, renewal);
    await advanceThirds(clock, 4);
    expect(seen.extended).toHaveLength(2);
    expect(seen.lost).toBe(1);
  });

  it('after a failed renewal, tries again only when told to', async () => {
    for (const retry of [true, false]) {
      const clock = new TestClock();
      const { seen, renewal } = recording(clock, [new Error('connection terminated')], retry);
      const stop = renewLease(clock, LEASE, renewal);
      await advanceThirds(clock, 3);
      expect(seen.failed).toBe(1);
      expect(seen.extended).toHaveLength(retry ? 3 : 1);
      stop();
    }
  });

  it('a renewal answered after the stop schedules nothing more and reports nothing', async () => {
    const clock = new TestClock();
    let answer: (held: boolean) => void = () => {};
    let asked = 0;
    let lost = 0;
    const stop = renewLease(clock, LEASE, {
      extend: () => (asked++, new Promise<boolean>((resolve) => (answer = resolve))),
      lost: () => void lost++,
      failed: () => true,
    });
    await clock.advance(LEASE / 3);
    stop();
    answer(false);
    await settle();
    await advanceThirds(clock, 3);
    expect([asked, lost]).toEqual([1, 0]);
  });
});
