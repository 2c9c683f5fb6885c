import { describe, expect, it, vi } from 'vitest';
import { CachedDisplayNames } from './display-names.js';

function setup(lookup: (id: string) => Promise<string | undefined>, waitMs = 1_000) {
  let now = 0;
  const spy = vi.fn(lookup);
  const names = new CachedDisplayNames({
    isPerson: (id) => /^U0[A-Z]$/.test(id),
    lookup: spy,
    clock: { now: () => now },
    ttlMs: 1_000,
    missTtlMs: 100,
    waitMs,
  });
  return { names, spy, advance: (ms: number) => (now += ms) };
}

describe('CachedDisplayNames', () => {
  it('asks once per person id, keeps the name, and skips ids that are no person’s', async () => {
    const { names, spy } = setup(async (id) => (id === 'U0A' ? 'ada' : undefined));
    expect([...(await names.of(['U0A', 'U0A', 'U0B', '0a1b2c3d-linear', 'console-admin']))]).toEqual([['U0A', 'ada']]);
    expect(await names.of(['U0A'])).toEqual(new Map([['U0A', 'ada']]));
    expect(spy.mock.calls.map(([id]) => id)).toEqual(['U0A', 'U0B']);
  });

  it('finds the ids whose known name contains a text, in any case, without asking anyone', async () => {
    const { names, spy } = setup(async (id) => ({ U0A: 'Ada Lovelace', U0B: 'ada', U0C: 'Grace' })[id]);
    expect(names.idsNamed('ada')).toEqual([]);
    await names.of(['U0A', 'U0B', 'U0C']);
    expect(names.idsNamed(' ADA ')).toEqual(['U0A', 'U0B']);
    expect(names.idsNamed('ada', 1)).toEqual(['U0A']);
    expect(names.idsNamed('')).toEqual([]);
    expect(names.idsNamed('nobody')).toEqual([]);
    expect(spy).toHaveBeenCalledTimes(3);
  });

  it.each([
    ['a miss', () => Promise.resolve(undefined)],
    ['a failure', () => Promise.reject(new Error('ratelimited'))],
  ])('remembers %s briefly, then asks again', async (_what, first) => {
    let answer: () => Promise<string | undefined> = first;
    const { names, spy, advance } = setup(() => answer());
    expect((await names.of(['U0A'])).size).toBe(0);
    expect((await names.of(['U0A'])).size).toBe(0);
    expect(spy).toHaveBeenCalledTimes(1);
    answer = () => Promise.resolve('ada');
    advance(101);
    expect(await names.of(['U0A'])).toEqual(new Map([['U0A', 'ada']]));
  });

  it('keeps showing a known name while it is asked again, and when asking fails', async () => {
    let answer: () => Promise<string | undefined> = () => Promise.resolve('ada');
    const { names, advance } = setup(() => answer());
    await names.of(['U0A']);
    answer = () => Promise.reject(new Error('down'));
    advance(1_001);
    expect(await names.of(['U0A'])).toEqual(new Map([['U0A', 'ada']]));
  });

  it('answers without waiting longer than its limit; the name is there for the next call', async () => {
    let release: (name: string) => void = () => {};
    const { names } = setup(() => new Promise<string>((resolve) => (release = resolve)), 20);
    expect((await names.of(['U0A'])).size).toBe(0);
    release('ada');
    await vi.waitFor(async () => expect(await names.of(['U0A'])).toEqual(new Map([['U0A', 'ada']])));
  });
});
