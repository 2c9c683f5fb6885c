import { describe, expect, it } from 'vitest';
import { SentResults } from './sent-results.js';

describe('SentResults', () => {
  it('answers a recorded result as JSON, a copy each time, and nothing for a key it never recorded', () => {
    const results = new SentResults();
    const original = { ts: '1', at: new Date(0), gone: undefined };
    results.record('k1', original);
    results.record('k2', undefined);
    original.ts = 'changed later';
    expect(results.lookup('k1')).toEqual({ found: true, result: { ts: '1', at: '1970-01-01T00:00:00.000Z' } });
    const copy = results.lookup('k1') as { result: { ts: string } };
    copy.result.ts = 'changed by a reader';
    expect(results.lookup('k1')).toEqual({ found: true, result: { ts: '1', at: '1970-01-01T00:00:00.000Z' } });
    expect(results.lookup('k2')).toEqual({ found: true, result: null });
    expect(results.lookup('k3')).toEqual({ found: false });
  });

  it('forgets the oldest result beyond its capacity', () => {
    const results = new SentResults(2);
    results.record('a', 1);
    results.record('b', 2);
    results.record('c', 3);
    expect(results.lookup('a')).toEqual({ found: false });
    expect(results.lookup('b')).toEqual({ found: true, result: 2 });
    expect(results.lookup('c')).toEqual({ found: true, result: 3 });
  });
});
