import { AgentApiError, type AgentApiErrorKind } from '../core/ports/agent-runs.js';
import { problemSchema, type Problem } from './schemas.js';

const KIND_BY_STATUS: Record<number, AgentApiErrorKind> = {
  400: 'bad_request',
  401: 'authentication',
  403: 'permission',
  404: 'not_found',
  408: 'timeout',
  409: 'conflict',
  422: 'unprocessable',
  429: 'rate_limited',
};

/** The error kind for an HTTP status the run API answered with. */
export function kindForStatus(status: number): AgentApiErrorKind {
  const known = KIND_BY_STATUS[status];
  if (known) return known;
  return status >= 500 ? 'server' : 'unexpected_status';
}

const RETRYABLE_KINDS: ReadonlySet<AgentApiErrorKind> = new Set(['timeout', 'conflict', 'rate_limited', 'server', 'connection']);

/**
 * Parses `Retry-After`: delta seconds or an HTTP date. Returns milliseconds from `nowMs`, or
 * undefined when absent or unreadable (a bad header must not turn into a zero wait).
 */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return undefined;
  const text = raw.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

const TYPE_CODE = /\/errors\/([a-z][a-z0-9_]*)\/?$/;
const CODE_TEXT = /^[a-z][a-z0-9_]*$/;

/**
 * The stable code of a problem body. The provider's SDK puts it in `type`
 * (`https://docs.warp.dev/…/troubleshooting/errors/{error_code}`) and documents `error` as a
 * human-readable message for older clients, which older servers used for the code itself: so
 * `type` first, then `error` if it reads as a code.
 */
export function problemCode(problem: Problem): string | undefined {
  const fromType = problem.type === undefined ? undefined : TYPE_CODE.exec(problem.type)?.[1];
  if (fromType !== undefined) return fromType;
  return problem.error !== undefined && CODE_TEXT.test(problem.error) ? problem.error : undefined;
}

/** Builds the typed error for a non-2xx answer. `what` names the call ("POST /agent/run"), never a header. */
export function errorFromResponse(what: string, status: number, bodyText: string, retryAfterMs: number | undefined): AgentApiError {
  const kind = kindForStatus(status);
  let problem: Problem = {};
  try {
    const parsed = problemSchema.safeParse(JSON.parse(bodyText));
    if (parsed.success) problem = parsed.data;
  } catch {
    // Not JSON (a proxy's HTML page, say): the status alone still classifies the error.
  }
  const code = problemCode(problem);
  // An `error` that is no code is the server's own sentence about the problem.
  const prose = problem.error !== undefined && problem.error !== code && problem.error.trim() !== '' ? problem.error : undefined;
  const detail = problem.detail ?? prose ?? problem.title;
  const summary = detail ? `: ${detail}` : '';
  return new AgentApiError(`${what} answered ${status} ${code ?? kind}${summary}`, {
    kind,
    status,
    ...(code !== undefined && { code }),
    ...(detail !== undefined && { detail }),
    retryable: problem.retryable ?? RETRYABLE_KINDS.has(kind),
    ...(retryAfterMs !== undefined && { retryAfterMs }),
  });
}

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT']);
/** Codes where the request certainly never reached the server, so even a create may be resent. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Turns a transport failure (undici or socket error) into a typed error. */
export function errorFromTransport(what: string, error: unknown): AgentApiError {
  const code = errorCode(error);
  if (code && TIMEOUT_CODES.has(code)) {
    return new AgentApiError(`${what} timed out (${code})`, { kind: 'timeout', code: 'timeout', retryable: true, cause: error });
  }
  return new AgentApiError(`${what} failed: could not reach the run API (${code ?? 'connection error'})`, {
    kind: 'connection',
    code: code && NOT_SENT_CODES.has(code) ? 'connection_refused' : 'connection_failed',
    retryable: true,
    cause: error,
  });
}

/** True when the request cannot have reached the server: safe to resend anything, a create included. */
export function certainlyNotSent(error: AgentApiError): boolean {
  return error.kind === 'connection' && error.code === 'connection_refused';
}
