import { describe, expect, it } from 'vitest';
import { CapturingLogger } from '../../test/core/capturing-logger.js';
import { TestClock } from './ports/clock.js';
import { startLoop } from './loop.js';

const turns = async (n = 5) => {
  for (let turn = 0; turn < n; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
};

describe('startLoop', () => {
  it('polls after an idle pass, every idle interval', async () => {
    const clock = new TestClock();
    let passes = 0;
    const loop = startLoop({ name: 'polling', clock, logger: new CapturingLogger(), idleMs: 1_000, work: async () => (passes++, false) });
    await turns();
    expect(passes).toBe(1);
    await clock.advance(1_000);
    expect(passes).toBe(2);
    await loop.stop();
  });

  it('with poll: false, waits for a wake after an idle pass (another loop polls for it)', async () => {
    const clock = new TestClock();
    let passes = 0;
    const loop = startLoop({ name: 'woken', clock, logger: new CapturingLogger(), idleMs: 1_000, poll: false, work: async () => (passes++, false) });
    await turns();
    expect(passes).toBe(1);
    await clock.advance(60_000);
    expect(passes).toBe(1);
    loop.wake();
    await turns();
    expect(passes).toBe(2);
    await loop.stop();
  });

  it('with poll: false, still goes again at once while there is work, and retries after a failed pass', async () => {
    const clock = new TestClock();
    const outcomes: Array<boolean | Error> = [true, true, new Error('store down'), false];
    let passes = 0;
    const loop = startLoop({
      name: 'woken',
      clock,
      logger: new CapturingLogger(),
      idleMs: 1_000,
      errorBackoffMs: 500,
      poll: false,
      work: async () => {
        const outcome = outcomes[passes++] ?? false;
        if (outcome instanceof Error) throw outcome;
        return outcome;
      },
    });
    await turns(20);
    expect(passes).toBe(3);
    await clock.advance(500);
    expect(passes).toBe(4);
    await clock.advance(60_000);
    expect(passes).toBe(4);
    await loop.stop();
  });

  it('is busy while a pass is in flight, and a wake then runs one more pass after it', async () => {
    const clock = new TestClock();
    let release = () => {};
    let passes = 0;
    const loop = startLoop({
      name: 'slow',
      clock,
      logger: new CapturingLogger(),
      idleMs: 1_000,
      poll: false,
      work: () => {
        passes++;
        return new Promise<boolean>((resolve) => (release = () => resolve(false)));
      },
    });
    await turns();
    expect(loop.busy).toBe(true);
    loop.wake();
    release();
    await turns();
    expect(passes).toBe(2);
    expect(loop.busy).toBe(true);
    release();
    await turns();
    expect(loop.busy).toBe(false);
    expect(passes).toBe(2);
    await loop.stop();
  });

  it('asks the gate before every pass, the passes of work already claimed included', async () => {
    const clock = new TestClock();
    let open = false;
    let waiting: Array<() => void> = [];
    const gate = { clear: () => (open ? Promise.resolve() : new Promise<void>((resolve) => waiting.push(resolve))) };
    let passes = 0;
    const loop = startLoop({
      name: 'gated',
      clock,
      logger: new CapturingLogger(),
      idleMs: 1_000,
      poll: false,
      gate,
      // Each pass says more may be due (a row claimed with the last delivery, whose lease its worker renews).
      work: async () => {
        passes++;
        return passes < 2;
      },
    });
    await turns();
    expect(passes).toBe(0);
    expect(waiting).toHaveLength(1);
    const release = () => {
      const held = waiting;
      waiting = [];
      for (const go of held) go();
    };
    release();
    await turns(2);
    // The second pass waits at the gate too.
    expect(passes).toBe(1);
    expect(waiting).toHaveLength(1);
    open = true;
    release();
    await turns(2);
    expect(passes).toBe(2);
    await loop.stop();
  });
});
