/**
 * Turns errors of `@slack/web-api` into the core's typed `NotifierError`, so the outbox can branch on
 * `retryable` / `retryAfterMs` / `code`. The WebClient is built with `retryConfig: {retries: 0}` and
 * `rejectRateLimitedCalls: true`: every failure surfaces here at once and the outbox owns retries.
 *
 * Messages are built from known, safe parts only (method, Slack error string, HTTP status, network
 * error code) and pass through `redactSecrets`: a token never reaches an error text (docs/architecture.md §8).
 * The original error is not attached as `cause` either, since its request details are not ours to log.
 */
import { NotifierError } from '../core/ports/notifier.js';

/** Slack platform errors (`{ok:false, error}`) that are worth retrying: Slack's side had a problem. */
export const RETRYABLE_PLATFORM_ERRORS: ReadonlySet<string> = new Set([
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
  'ratelimited',
]);

const RATE_LIMITED = 'slack_webapi_rate_limited_error';
const HTTP_ERROR = 'slack_webapi_http_error';
const REQUEST_ERROR = 'slack_webapi_request_error';
const PLATFORM_ERROR = 'slack_webapi_platform_error';

/** True for the errors `@slack/web-api` throws (their `code` starts with `slack_webapi_`). */
export function isSlackApiError(error: unknown): error is Error & { code: string } {
  const code: unknown = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.startsWith('slack_webapi_');
}

/** The Slack error string of a platform error (`channel_not_found`, `already_reacted`, …), else undefined. */
export function slackErrorCode(error: unknown): string | undefined {
  if (!isSlackApiError(error) || error.code !== PLATFORM_ERROR) return undefined;
  const code = (error as { data?: { error?: unknown } }).data?.error;
  return typeof code === 'string' ? code : undefined;
}

/**
 * The NotifierError for an error thrown by a Web API call to `method`:
 * - rate limited (HTTP 429) → retryable, `retryAfterMs` from `Retry-After`, code `rate_limited`;
 * - HTTP errors (5xx, unexpected statuses) → retryable, code `http_<status>`;
 * - request errors (network, timeout) → retryable, code `request_error`;
 * - platform errors → code = Slack's error string; retryable only for `RETRYABLE_PLATFORM_ERRORS`;
 * - anything else → retryable, code `unexpected_error` (a bug or an unknown failure must not drop a message).
 */
export function toNotifierError(error: unknown, method: string): NotifierError {
  if (error instanceof NotifierError) return error;
  const what = `Slack ${safe(method, 60)}`;
  if (!isSlackApiError(error)) {
    const name = error instanceof Error ? error.name : typeof error;
    return new NotifierError(`${what} failed unexpectedly (${safe(name, 60)})`, { code: 'unexpected_error', retryable: true });
  }
  switch (error.code) {
    case RATE_LIMITED: {
      const seconds = Number((error as { retryAfter?: unknown }).retryAfter);
      const retryAfterMs = Number.isFinite(seconds) && seconds > 0 ? Math.round(seconds * 1000) : undefined;
      return new NotifierError(`${what} was rate limited${retryAfterMs === undefined ? '' : `; retry after ${seconds} s`}`, {
        code: 'rate_limited',
        retryable: true,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      });
    }
    case HTTP_ERROR: {
      const status = Number((error as { statusCode?: unknown }).statusCode);
      const label = Number.isInteger(status) ? String(status) : 'unknown';
      return new NotifierError(`${what} answered HTTP ${label}`, { code: `http_${label}`, retryable: true });
    }
    case REQUEST_ERROR:
      return new NotifierError(`${what} request failed (${safe(requestDetail(error), 100)})`, { code: 'request_error', retryable: true });
    case PLATFORM_ERROR: {
      const code = safe(slackErrorCode(error) ?? 'unknown_error', 100);
      return new NotifierError(`${what} failed: ${code}`, { code, retryable: RETRYABLE_PLATFORM_ERRORS.has(code) });
    }
    default:
      return new NotifierError(`${what} failed (${safe(error.code, 60)})`, { code: 'unexpected_error', retryable: true });
  }
}

/** Replaces anything shaped like a Slack token (`xoxb-…`, `xoxp-…`, `xapp-…`, …) with `[redacted]`. */
export function redactSecrets(text: string): string {
  return text.replace(/\b(?:xox[a-z]|xapp)-[A-Za-z0-9-]+/gi, '[redacted]');
}

/** What went wrong on the network: the system error code (ECONNREFUSED) or the error's own words. */
function requestDetail(error: Error): string {
  const original = (error as { original?: unknown }).original;
  if (!(original instanceof Error)) return 'network error';
  const cause = (original as { cause?: unknown }).cause;
  const causeCode = cause instanceof Error ? (cause as { code?: unknown }).code : undefined;
  if (typeof causeCode === 'string') return causeCode;
  if (original.name === 'AbortError' || original.name === 'TimeoutError') return 'timeout';
  if (cause instanceof Error && cause.message !== '') return cause.message;
  return original.message || original.name;
}

/** Redacted, single-line and cut to `max` characters. */
function safe(text: string, max: number): string {
  const clean = redactSecrets(text).replace(/\s+/g, ' ').trim();
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}
