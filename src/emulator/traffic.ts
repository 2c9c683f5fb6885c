/**
 * What the testing endpoints control about /api/v1 traffic: injected faults and the request log.
 */
import { badRequest } from './problem.js';

/** One queued fault; it answers the next `remaining` API requests. */
export interface Fault {
  remaining: number;
  /** HTTP status to answer; 0 = destroy the socket; undefined = answer normally (after the delay). */
  status?: number;
  retryAfter?: string;
  error?: string;
  detail?: string;
  delayMs: number;
  /** Only requests with this method and path (under /api/v1, e.g. `POST /agent/run`) meet the fault. */
  match?: { method: string; path: string };
}

export interface RequestLogEntry {
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  at: string;
  /** Status answered; 0 when the connection was cut without an answer; null while in flight. */
  status: number | null;
  /** `creator.uid` of the key that made the request (derived from it, never the key); null until authenticated. */
  creator: string | null;
}

/** Parses a `POST /_emulator/faults` body; throws a 400 naming the first bad field. */
export function parseFault(body: Record<string, unknown>): Fault {
  const { count = 1, status, retry_after: retryAfter, error, detail, delay_ms: delayMs = 0, match } = body;
  let only: Fault['match'];
  if (match !== undefined) {
    const parts = typeof match === 'string' ? /^(GET|POST) (\/\S*)$/.exec(match) : null;
    if (!parts) throw badRequest('match must look like "POST /agent/run" (a method and a path under /api/v1)');
    only = { method: parts[1]!, path: parts[2]! };
  }
  if (!Number.isSafeInteger(count) || (count as number) < 1) throw badRequest('count must be a positive integer');
  if (status !== undefined && (!Number.isSafeInteger(status) || (status !== 0 && ((status as number) < 100 || (status as number) > 599)))) {
    throw badRequest('status must be 0 (cut the connection) or an HTTP status from 100 to 599');
  }
  if (retryAfter !== undefined && typeof retryAfter !== 'number' && typeof retryAfter !== 'string') {
    throw badRequest('retry_after must be a number of seconds or an HTTP date');
  }
  if (error !== undefined && typeof error !== 'string') throw badRequest('error must be a string');
  if (detail !== undefined && typeof detail !== 'string') throw badRequest('detail must be a string');
  if (typeof delayMs !== 'number' || !Number.isFinite(delayMs) || delayMs < 0) {
    throw badRequest('delay_ms must be a non-negative number');
  }
  if (status === undefined && delayMs === 0) throw badRequest('status or delay_ms is required');
  const fault: Fault = { remaining: count as number, delayMs };
  if (status !== undefined) fault.status = status as number;
  if (retryAfter !== undefined) fault.retryAfter = String(retryAfter);
  if (error !== undefined) fault.error = error;
  if (detail !== undefined) fault.detail = detail;
  if (only) fault.match = only;
  return fault;
}

/**
 * Faults queue up in the order they were posted: `{count: 2, status: 503}` then
 * `{count: 1, status: 429}` answers 503, 503, 429, then normally again.
 */
export class FaultQueue {
  private readonly queue: Fault[] = [];

  add(fault: Fault): void {
    this.queue.push(fault);
  }

  /**
   * Takes the fault for a request, if any: the first queued fault without `match`, or whose `match`
   * names this request. Faults that name other requests wait for theirs.
   */
  take(method = 'GET', path = '/'): Fault | undefined {
    const index = this.queue.findIndex((fault) => !fault.match || (fault.match.method === method && fault.match.path === path));
    const fault = this.queue[index];
    if (!fault) return undefined;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.queue.splice(index, 1);
    return { ...fault };
  }

  pending(): Fault[] {
    return this.queue.map((f) => ({ ...f }));
  }

  clear(): void {
    this.queue.length = 0;
  }
}

/** Every /api/v1 request in arrival order; headers are never recorded, so no key can leak here. */
export class RequestLog {
  private entries: RequestLogEntry[] = [];

  /** Records a request and returns its entry so the status can be filled in once answered. */
  record(method: string, url: URL, at: string): RequestLogEntry {
    const query: Record<string, string | string[]> = {};
    for (const key of new Set(url.searchParams.keys())) {
      const values = url.searchParams.getAll(key);
      query[key] = values.length === 1 ? (values[0] as string) : values;
    }
    const entry: RequestLogEntry = { method, path: url.pathname, query, at, status: null, creator: null };
    this.entries.push(entry);
    return entry;
  }

  all(): RequestLogEntry[] {
    return structuredClone(this.entries);
  }

  clear(): void {
    this.entries = [];
  }
}
