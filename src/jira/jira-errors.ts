/**
 * Errors of Jira's REST API as one typed error with a stable code (never branch on text), and their
 * translation into the core's `NotifierError`. Messages are built from the call's name (method and
 * path template) and the status only: Jira's own error text may quote what we sent.
 */
import { NotifierError } from '../core/ports/notifier.js';

export type JiraErrorCode =
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'bad_request'
  | 'rate_limited'
  | 'server_error'
  | 'unexpected_status'
  | 'timeout'
  | 'connection'
  | 'invalid_response';

const RETRYABLE: ReadonlySet<JiraErrorCode> = new Set(['rate_limited', 'server_error', 'timeout', 'connection']);

export class JiraApiError extends Error {
  override readonly name = 'JiraApiError';
  readonly code: JiraErrorCode;
  /** The HTTP status, 0 when Jira did not answer. */
  readonly status: number;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  constructor(call: string, init: { code: JiraErrorCode; status?: number; retryAfterMs?: number }) {
    super(`Jira ${call} failed: ${init.code}${init.status ? ` (HTTP ${init.status})` : ''}`);
    this.code = init.code;
    this.status = init.status ?? 0;
    this.retryable = RETRYABLE.has(init.code);
    this.retryAfterMs = init.retryAfterMs;
  }
}

/** The code for a status Jira answered with. */
export function codeForStatus(status: number): JiraErrorCode {
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not_found';
  if (status === 400) return 'bad_request';
  if (status === 429) return 'rate_limited';
  return status >= 500 ? 'server_error' : 'unexpected_status';
}

export function isJiraError(error: unknown, ...codes: JiraErrorCode[]): boolean {
  return error instanceof JiraApiError && (codes.length === 0 || codes.includes(error.code));
}

/** The NotifierError for a failed delivery: Jira's side, the network and rate limits retry; our mistakes do not. */
export function toJiraNotifierError(error: unknown, operation: string): NotifierError {
  if (error instanceof NotifierError) return error;
  if (error instanceof JiraApiError) {
    return new NotifierError(`${error.message} (${operation.slice(0, 40)})`, {
      code: error.code,
      retryable: error.retryable,
      ...(error.retryAfterMs !== undefined && { retryAfterMs: error.retryAfterMs }),
    });
  }
  // Not ours to read (a bug or a raw failure): retried, so a message owed to a person is not dropped.
  const name = error instanceof Error ? error.name.slice(0, 60) : typeof error;
  return new NotifierError(`Jira ${operation.slice(0, 40)} failed (${name})`, { code: 'request_error', retryable: true });
}
