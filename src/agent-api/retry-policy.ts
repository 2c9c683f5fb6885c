import type { AgentApiError } from '../core/ports/agent-runs.js';
import { certainlyNotSent } from './errors.js';

/**
 * When may a failed call be sent again?
 *
 * - Reads (GET) and cancel are safe to repeat: retried on connection errors, timeouts, 408, 409
 *   (a run still being prepared cannot be cancelled yet), 429 and 5xx.
 * - Create, factory dispatch and follow-up are NOT idempotent (the run API has no idempotency key),
 *   so they are retried only when the server certainly did not act on them: 429 (capacity full,
 *   rejected), 408 (the server gave up before reading the request) and a connection that was refused
 *   before anything was sent. A timeout, a reset connection or a 5xx may come after the server
 *   created the run, so those are returned to the caller, who reconciles by listing runs (docs/architecture.md
 *   §5, "Exactly once") rather than blindly re-creating.
 */
export type CallSafety = 'idempotent' | 'not-idempotent';

export interface RetryOptions {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** First backoff step; doubles per attempt, jittered between half and the whole step. */
  baseDelayMs: number;
  /** Cap for one backoff step. */
  maxDelayMs: number;
  /** A `Retry-After` longer than this is not waited for in-process: the error goes to the caller. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_OPTIONS: RetryOptions = {
  maxRetries: 3,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
};

export function mayRetry(error: AgentApiError, safety: CallSafety): boolean {
  // The server's own `retryable: false` wins over what the status suggests.
  if (!error.retryable) return false;
  if (safety === 'not-idempotent') {
    return error.status === 429 || error.status === 408 || certainlyNotSent(error);
  }
  if (error.kind === 'conflict' || error.kind === 'rate_limited' || error.kind === 'server') return true;
  return error.kind === 'connection' || error.kind === 'timeout';
}

/**
 * The wait before retry number `retry` (1-based): the server's `Retry-After` when it sent one,
 * else exponential backoff with jitter (half the step plus a random part of the other half). `random` is injectable so tests can pin it.
 */
export function retryDelayMs(error: AgentApiError, retry: number, options: RetryOptions, random: () => number): number {
  if (error.retryAfterMs !== undefined) return error.retryAfterMs;
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (retry - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** Whether to retry now, and after how long; `undefined` means give the error to the caller. */
export function nextRetry(error: AgentApiError, safety: CallSafety, retry: number, options: RetryOptions, random: () => number): number | undefined {
  if (retry > options.maxRetries || !mayRetry(error, safety)) return undefined;
  const delay = retryDelayMs(error, retry, options, random);
  return delay > options.maxRetryAfterMs ? undefined : delay;
}
