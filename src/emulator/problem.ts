/**
 * RFC 7807 answers of the emulated run API. Every error the emulator sends goes through here, so
 * the `error` codes and the retryable flags stay the same on every path a client can hit.
 */
import { STATUS_CODES, type ServerResponse } from 'node:http';

/** Stable `error` codes of the problem bodies; clients branch on these, never on `detail`. */
export type ProblemCode =
  | 'invalid_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_operation'
  | 'capacity_exceeded'
  | 'internal_error'
  | 'service_unavailable';

const CODE_BY_STATUS: Record<number, ProblemCode> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  422: 'unsupported_operation',
  429: 'capacity_exceeded',
  500: 'internal_error',
  503: 'service_unavailable',
};

/** The code the real service uses for a status; unlisted 4xx/5xx fall back to the nearest class. */
export function codeForStatus(status: number): ProblemCode {
  const known = CODE_BY_STATUS[status];
  if (known) return known;
  return status >= 500 ? 'service_unavailable' : 'invalid_request';
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

/** Builds the body; `type` is a per-code URI so a problem is identifiable without its status. */
export function problemBody(status: number, detail: string, error?: string, retryable?: boolean): ProblemBody {
  const code = error ?? codeForStatus(status);
  return {
    type: `https://agent-bridge.invalid/problems/${code}`,
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
