import { describe, expect, it } from 'vitest';
import { TestClock } from './ports/clock.js';
import { AnswerCache } from './answer-cache.js';

describe('AnswerCache', () => {
  const counted = () => {
    const asked: string[] = [];
    return {
      asked,
      ask:
        (key: string, answer = true) =>
        () => (asked.push(key), Promise.resolve(answer)),
    };
  };

  it('asks once per key while the answer is fresh, and again once it is stale (on the injected clock)', async () => {
    const clock = new TestClock();
    const cache = new AnswerCache<boolean>({ ttlMs: 5 * 60_000, maxEntries: 10, now: () => clock.now() });
    const { asked, ask } = counted();
    expect(await cache.get('ENG\nada', ask('ENG\nada'))).toBe(true);
    await clock.advance(5 * 60_000 - 1);
    expect(await cache.get('ENG\nada', ask('ENG\nada', false))).toBe(true);
    expect(asked).toHaveLength(1);
    await clock.advance(1);
    expect(await cache.get('ENG\nada', ask('ENG\nada', false))).toBe(false);
    expect(asked).toHaveLength(2);
  });

  it('shares a question under way, forgets a failed one, and keeps at most maxEntries (the oldest go)', async () => {
    const clock = new TestClock();
    const cache = new AnswerCache<boolean>({ ttlMs: 60_000, maxEntries: 2, now: () => clock.now() });
    let release: (value: boolean) => void = () => {};
    let asks = 0;
    const slow = () => (asks++, new Promise<boolean>((resolve) => (release = resolve)));
    const both = Promise.all([cache.get('a', slow), cache.get('a', slow)]);
    release(true);
    expect(await both).toEqual([true, true]);
    expect(asks).toBe(1);

    await expect(cache.get('b', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    const { asked, ask } = counted();
    expect(await cache.get('b', ask('b'))).toBe(true);
    expect(asked).toEqual(['b']);

    await cache.get('c', ask('c'));
    expect(cache.size).toBe(2);
    await cache.get('a', ask('a'));
    expect(asked).toEqual(['b', 'c', 'a']);
  });
});
