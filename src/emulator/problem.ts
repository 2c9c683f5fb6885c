/**
 * RFC 7807 answers of the emulated run API. Every error the emulator sends goes through here, so
 * the `error` codes and the retryable flags stay the same on every path a client can hit.
 */
import { STATUS_CODES, type ServerResponse } from 'node:http';

/**
 * Stable `error` codes of the problem bodies: the `ErrorCode` set of the run API's official SDK
 * (oz-agent-sdk). Clients branch on these, never on `detail`.
 */
export const ERROR_CODES = [
  'insufficient_credits',
  'feature_not_available',
  'external_authentication_required',
  'not_authorized',
  'invalid_request',
  'resource_not_found',
  'budget_exceeded',
  'integration_disabled',
  'integration_not_configured',
  'operation_not_supported',
  'environment_setup_failed',
  'content_policy_violation',
  'conflict',
  'authentication_required',
  'resource_unavailable',
  'internal_error',
] as const;

export type ProblemCode = (typeof ERROR_CODES)[number];

export function isErrorCode(text: string): text is ProblemCode {
  return (ERROR_CODES as readonly string[]).includes(text);
}

/** Codes the SDK calls transient: a new attempt may succeed without changing anything. */
const RETRYABLE_CODES: ReadonlySet<string> = new Set(['resource_unavailable', 'internal_error']);

export function isRetryableCode(code: string): boolean {
  return RETRYABLE_CODES.has(code);
}

/** `type` of a problem: the SDK documents one page per code under this base. */
export const PROBLEM_TYPE_BASE = 'https://docs.warp.dev/reference/api-and-sdk/troubleshooting/errors/';

// 405, 413 and 429 have no code of their own in the SDK's set; these are the nearest meanings.
const CODE_BY_STATUS: Record<number, ProblemCode> = {
  400: 'invalid_request',
  401: 'authentication_required',
  403: 'not_authorized',
  404: 'resource_not_found',
  405: 'operation_not_supported',
  409: 'conflict',
  413: 'invalid_request',
  422: 'operation_not_supported',
  429: 'resource_unavailable',
  500: 'internal_error',
  503: 'resource_unavailable',
};

/** The code the real service uses for a status; unlisted 4xx/5xx fall back to the nearest class. */
export function codeForStatus(status: number): ProblemCode {
  const known = CODE_BY_STATUS[status];
  if (known) return known;
  return status >= 500 ? 'resource_unavailable' : 'invalid_request';
}

/** Conflicts, capacity and server trouble are worth retrying; a bad request never is. */
export function retryableForStatus(status: number): boolean {
  return status === 409 || status === 429 || status >= 500;
}

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  error: string;
  retryable: boolean;
}

export interface ProblemInit {
  error?: string;
  retryable?: boolean;
  headers?: Record<string, string>;
}

/** Thrown anywhere below a route handler; the dispatcher turns it into the answer. */
export class ProblemError extends Error {
  override readonly name = 'ProblemError';
  readonly status: number;
  readonly error: string;
  readonly retryable: boolean;
  readonly headers: Record<string, string>;

  constructor(status: number, detail: string, init: ProblemInit = {}) {
    super(detail);
    this.status = status;
    this.error = init.error ?? codeForStatus(status);
    this.retryable = init.retryable ?? retryableForStatus(status);
    this.headers = init.headers ?? {};
  }

  get detail(): string {
    return this.message;
  }
}

/** Shorthand for the 400 every validation failure answers. */
export function badRequest(detail: string): ProblemError {
  return new ProblemError(400, detail);
}

/** Builds the body; `type` is the code's page, so a problem is identifiable without its status. */
export function problemBody(status: number, detail: string, error?: string, retryable?: boolean): ProblemBody {
  const code = error ?? codeForStatus(status);
  return {
    type: `${PROBLEM_TYPE_BASE}${encodeURIComponent(code)}`,
    title: STATUS_CODES[status] ?? 'Error',
    status,
    detail,
    error: code,
    retryable: retryable ?? retryableForStatus(status),
  };
}

/** Writes a problem answer unless the response is already under way (then it can only be cut). */
export function sendProblem(res: ServerResponse, problem: ProblemError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify(problemBody(problem.status, problem.detail, problem.error, problem.retryable));
  res.writeHead(problem.status, {
    ...problem.headers,
    'content-type': 'application/problem+json',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
  });
  res.end(body);
}
