/**
 * Turns errors of `@linear/sdk` (a `LinearError` with `type`, `status`, and `retryAfter` when rate
 * limited) into the core's typed `NotifierError`. We branch on the SDK's error `type`, never on text.
 * Messages are built from known parts only (operation, type, status): the SDK's own message may echo
 * the query's variables (comment bodies), which are not ours to log.
 */
import { NotifierError } from '../core/ports/notifier.js';

/** Linear error types worth retrying: Linear's side, the network, or a rate limit. */
const RETRYABLE_TYPES: ReadonlySet<string> = new Set(['Ratelimited', 'NetworkError', 'InternalError', 'LockTimeout', 'Unknown', 'Other']);

/** Thrown by our own timeout around an SDK call (the SDK's fetch has none). */
export class LinearTimeoutError extends Error {
  override readonly name = 'LinearTimeoutError';
}

interface SdkError {
  type?: unknown;
  status?: unknown;
  retryAfter?: unknown;
}

/** The SDK error's `type` (`Ratelimited`, `AuthenticationError`, …), `Timeout`, or undefined for other errors. */
export function linearErrorType(error: unknown): string | undefined {
  if (error instanceof LinearTimeoutError) return 'Timeout';
  const type = (error as SdkError | undefined)?.type;
  return error instanceof Error && typeof type === 'string' ? type : undefined;
}

/** True when Linear refused our key or token (a configuration problem, not a passing one). */
export function isAuthenticationError(error: unknown): boolean {
  const type = linearErrorType(error);
  return type === 'AuthenticationError' || type === 'Forbidden';
}

/** True when the entity asked for does not exist (Linear answers `invalid input`, "Entity not found"). */
export function isInvalidInput(error: unknown): boolean {
  return linearErrorType(error) === 'InvalidInput';
}

/**
 * The NotifierError for a failed call: rate limits, network trouble, timeouts, 5xx and unknown errors
 * are retryable (`retryAfterMs` from Retry-After); authentication, permission and input errors are not.
 * An error that is not the SDK's (a bug or a refused connection surfacing raw) is retryable: a
 * message owed to a person must not be dropped on an unknown failure.
 */
export function toLinearNotifierError(error: unknown, operation: string): NotifierError {
  if (error instanceof NotifierError) return error;
  const type = linearErrorType(error);
  const status = (error as SdkError | undefined)?.status;
  const statusText = typeof status === 'number' ? ` (HTTP ${status})` : '';
  const what = `Linear ${operation.slice(0, 60)}`;
  if (type === undefined) {
    const name = error instanceof Error ? error.name.slice(0, 60) : typeof error;
    return new NotifierError(`${what} failed (${name})`, { code: 'request_error', retryable: true });
  }
  if (type === 'Timeout') return new NotifierError(`${what} timed out`, { code: 'timeout', retryable: true });
  if (type === 'Ratelimited') {
    const seconds = Number((error as SdkError).retryAfter);
    const retryAfterMs = Number.isFinite(seconds) && seconds > 0 ? Math.round(seconds * 1000) : undefined;
    return new NotifierError(`${what} was rate limited${retryAfterMs === undefined ? '' : `; retry after ${seconds} s`}`, {
      code: 'rate_limited',
      retryable: true,
      ...(retryAfterMs !== undefined && { retryAfterMs }),
    });
  }
  const code = type.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase();
  return new NotifierError(`${what} failed: ${code}${statusText}`, { code, retryable: RETRYABLE_TYPES.has(type) });
}
