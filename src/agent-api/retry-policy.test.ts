import { describe, expect, it } from 'vitest';
import { AgentApiError, type AgentApiErrorKind } from '../core/ports/agent-runs.js';
import { errorFromResponse } from './errors.js';
import { DEFAULT_RETRY_OPTIONS, mayRetry, nextRetry, retryDelayMs } from './retry-policy.js';

const transport = (kind: AgentApiErrorKind, code: string) => new AgentApiError('x', { kind, code, retryable: true });

describe('mayRetry', () => {
  it.each([
    // [what, error, idempotent call may retry, create/follow-up may retry]
    ['400', errorFromResponse('c', 400, '', undefined), false, false],
    ['401', errorFromResponse('c', 401, '', undefined), false, false],
    ['404', errorFromResponse('c', 404, '', undefined), false, false],
    ['408', errorFromResponse('c', 408, '', undefined), true, true],
    ['409', errorFromResponse('c', 409, '', undefined), true, false],
    ['429', errorFromResponse('c', 429, '', 1000), true, true],
    ['500', errorFromResponse('c', 500, '', undefined), true, false],
    ['503', errorFromResponse('c', 503, '', undefined), true, false],
    ['connection refused', transport('connection', 'connection_refused'), true, true],
    ['connection reset', transport('connection', 'connection_failed'), true, false],
    ['timeout', transport('timeout', 'timeout'), true, false],
    ['429 marked not retryable', errorFromResponse('c', 429, '{"retryable":false}', undefined), false, false],
  ])('%s', (_what, error, idempotent, notIdempotent) => {
    expect(mayRetry(error, 'idempotent')).toBe(idempotent);
    expect(mayRetry(error, 'not-idempotent')).toBe(notIdempotent);
  });
});

describe('retry delays', () => {
  const options = { ...DEFAULT_RETRY_OPTIONS, baseDelayMs: 100, maxDelayMs: 1000 };

  it('honours Retry-After over backoff', () => {
    const error = errorFromResponse('c', 429, '', 7000);
    expect(retryDelayMs(error, 1, options, () => 0.5)).toBe(7000);
  });

  it('backs off exponentially with jitter between half and the whole step, capped', () => {
    const error = errorFromResponse('c', 503, '', undefined);
    expect([1, 2, 3, 4, 5].map((retry) => retryDelayMs(error, retry, options, () => 0))).toEqual([50, 100, 200, 400, 500]);
    expect([1, 2, 3, 4, 5].map((retry) => retryDelayMs(error, retry, options, () => 1))).toEqual([100, 200, 400, 800, 1000]);
  });

  it('stops after maxRetries and when Retry-After is longer than it will wait', () => {
    const error = errorFromResponse('c', 503, '', undefined);
    expect(nextRetry(error, 'idempotent', options.maxRetries, options, () => 0)).toBeDefined();
    expect(nextRetry(error, 'idempotent', options.maxRetries + 1, options, () => 0)).toBeUndefined();
    const longWait = errorFromResponse('c', 429, '', options.maxRetryAfterMs + 1);
    expect(nextRetry(longWait, 'idempotent', 1, options, () => 0)).toBeUndefined();
  });
});
