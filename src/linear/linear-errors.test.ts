import { describe, expect, it } from 'vitest';
import { NotifierError } from '../core/ports/notifier.js';
import { LinearTimeoutError, isAuthenticationError, isInvalidInput, toLinearNotifierError } from './linear-errors.js';

/** An error shaped like the SDK's `LinearError` subclasses (type, status, retryAfter). */
const sdkError = (type: string, extra: Record<string, unknown> = {}) => Object.assign(new Error('Variables: {"body":"secret text"}'), { type, ...extra });

describe('toLinearNotifierError', () => {
  it.each([
    ['rate limited with Retry-After', sdkError('Ratelimited', { status: 429, retryAfter: 7 }), 'rate_limited', true, 7_000],
    ['rate limited without Retry-After', sdkError('Ratelimited', { status: 400 }), 'rate_limited', true, undefined],
    ['network error (5xx)', sdkError('NetworkError', { status: 503 }), 'network_error', true, undefined],
    ['internal error (500)', sdkError('InternalError', { status: 500 }), 'internal_error', true, undefined],
    ['lock timeout', sdkError('LockTimeout'), 'lock_timeout', true, undefined],
    ['unknown', sdkError('Unknown'), 'unknown', true, undefined],
    ['authentication', sdkError('AuthenticationError', { status: 401 }), 'authentication_error', false, undefined],
    ['forbidden', sdkError('Forbidden', { status: 403 }), 'forbidden', false, undefined],
    ['invalid input (entity not found)', sdkError('InvalidInput'), 'invalid_input', false, undefined],
    ['our timeout', new LinearTimeoutError('late'), 'timeout', true, undefined],
    ['a raw fetch failure', new TypeError('fetch failed'), 'request_error', true, undefined],
  ])('%s', (_what, error, code, retryable, retryAfterMs) => {
    const mapped = toLinearNotifierError(error, 'received');
    expect(mapped).toBeInstanceOf(NotifierError);
    expect({ code: mapped.code, retryable: mapped.retryable, retryAfterMs: mapped.retryAfterMs }).toEqual({ code, retryable, retryAfterMs });
    // The SDK's message may echo the query's variables: never copied.
    expect(mapped.message).not.toContain('secret text');
  });

  it('keeps a NotifierError as it is', () => {
    const original = new NotifierError('x', { code: 'bad_destination', retryable: false });
    expect(toLinearNotifierError(original, 'status')).toBe(original);
  });

  it.each([
    ['AuthenticationError', true, false],
    ['Forbidden', true, false],
    ['InvalidInput', false, true],
    ['Ratelimited', false, false],
  ])('%s: authentication %s, invalid input %s', (type, authentication, invalid) => {
    expect(isAuthenticationError(sdkError(type))).toBe(authentication);
    expect(isInvalidInput(sdkError(type))).toBe(invalid);
  });
});
