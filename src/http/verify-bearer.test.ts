import { describe, expect, it } from 'vitest';
import { bearerToken, type BearerCheck } from './verify-bearer.js';

const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJodHRwczovL2lzc3Vlci5leGFtcGxlIn0.c2lnbmF0dXJl';
const NOW = 1_772_441_700_000;

/** A check that admits JWT only, saying who it is, and records what it was asked. */
function recordingCheck(): { check: BearerCheck; asked: Array<[string, number]> } {
  const asked: Array<[string, number]> = [];
  return {
    asked,
    check: async (token, nowMs) => {
      asked.push([token, nowMs]);
      return token === JWT ? { ok: true, claims: { serviceurl: 'https://service.example/' } } : { ok: false, problem: 'mismatch' };
    },
  };
}

describe('bearerToken', () => {
  it('refuses on the header’s shape alone, without asking the check', () => {
    const { check, asked } = recordingCheck();
    const verifier = bearerToken({ check });
    expect(verifier.credential).toBe('Authorization');
    expect(verifier.refuse({}, NOW)).toBe('missing');
    expect(verifier.refuse({ authorization: '' }, NOW)).toBe('missing');
    for (const value of ['Basic dXNlcjpwYXNz', `Bearer ${JWT}.extra`, 'Bearer not-a-jwt', `Bearer ${'a'.repeat(5000)}.b.c`, JWT]) {
      expect(verifier.refuse({ authorization: value }, NOW), value.slice(0, 30)).toBe('mismatch');
    }
    expect(verifier.refuse({ authorization: `Bearer ${JWT}` }, NOW)).toBeUndefined();
    expect(verifier.refuse({ authorization: `bearer ${JWT}` }, NOW)).toBeUndefined();
    expect(asked).toEqual([]);
  });

  it('admits by the check, before the body (it has no verify step), handing its claims on', async () => {
    const { check, asked } = recordingCheck();
    const verifier = bearerToken({ check });
    expect(verifier).not.toHaveProperty('verify');
    expect(await verifier.admit?.({ authorization: `Bearer ${JWT}` }, NOW)).toEqual({ ok: true, claims: { serviceurl: 'https://service.example/' } });
    expect(await verifier.admit?.({ authorization: `Bearer ${JWT.replace('c2ln', 'c2lh')}` }, NOW)).toEqual({ ok: false, problem: 'mismatch' });
    expect(await verifier.admit?.({}, NOW)).toEqual({ ok: false, problem: 'missing' });
    expect(asked).toEqual([
      [JWT, NOW],
      [JWT.replace('c2ln', 'c2lh'), NOW],
    ]);
  });

  it('reads another header when told', () => {
    const verifier = bearerToken({ check: recordingCheck().check, header: 'X-Token-Header' });
    expect(verifier.credential).toBe('X-Token-Header');
    expect(verifier.refuse({ 'x-token-header': `Bearer ${JWT}` }, NOW)).toBeUndefined();
    expect(verifier.refuse({ authorization: `Bearer ${JWT}` }, NOW)).toBe('missing');
  });
});
