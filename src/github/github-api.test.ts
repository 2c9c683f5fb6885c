import { describe, expect, it } from 'vitest';
import { githubError } from './github-api.js';

const failure = (status: number | undefined, headers: Record<string, string> = {}) => Object.assign(new Error('x'), { status, response: { headers } });

describe('githubError', () => {
  it.each<[string, unknown, boolean, number | undefined]>([
    ['no answer', new Error('ECONNRESET'), true, undefined],
    ['a 502', failure(502), true, undefined],
    ['a 429 with retry-after', failure(429, { 'retry-after': '30' }), true, 30_000],
    ['a secondary rate limit (403 with retry-after)', failure(403, { 'retry-after': '60' }), true, 60_000],
    ['the primary rate limit spent (403, none left)', failure(403, { 'x-ratelimit-remaining': '0' }), true, undefined],
    ['a 403 for want of permission', failure(403), false, undefined],
    ['a 401', failure(401), false, undefined],
    ['a 404', failure(404), false, undefined],
    ['a 422', failure(422), false, undefined],
  ])('%s → retryable %s', (_what, error, retryable, retryAfterMs) => {
    const mapped = githubError(error, 'post a comment');
    expect(mapped.retryable).toBe(retryable);
    expect(mapped.retryAfterMs).toBe(retryAfterMs);
    expect(mapped.code).toMatch(/^github_/);
  });
});
