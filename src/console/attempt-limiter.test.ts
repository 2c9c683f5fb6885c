import { describe, expect, it } from 'vitest';
import { AttemptLimiter } from './attempt-limiter.js';

describe('AttemptLimiter', () => {
  it('blocks an address after its failures in the window, until the first of them is old enough', () => {
    const limiter = new AttemptLimiter({ maxFailures: 3, windowMs: 1000, maxKeys: 10 });
    for (const at of [0, 100, 200]) {
      expect(limiter.retryAfterMs('a', at)).toBe(0);
      limiter.fail('a', at);
    }
    expect(limiter.retryAfterMs('a', 300)).toBe(700);
    expect(limiter.retryAfterMs('b', 300)).toBe(0);
    expect(limiter.retryAfterMs('a', 1001)).toBe(0);
  });

  it('forgets an address that signed in, and keeps at most maxKeys addresses', () => {
    const limiter = new AttemptLimiter({ maxFailures: 1, windowMs: 1000, maxKeys: 2 });
    limiter.fail('a', 0);
    limiter.succeed('a');
    expect(limiter.retryAfterMs('a', 1)).toBe(0);
    for (const key of ['x', 'y', 'z']) limiter.fail(key, 0);
    expect(limiter.retryAfterMs('x', 1)).toBe(0);
    expect(limiter.retryAfterMs('z', 1)).toBe(999);
  });
});
