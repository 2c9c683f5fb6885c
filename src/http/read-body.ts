import type { IncomingMessage } from 'node:http';
import { systemClock, type Clock } from '../core/ports/clock.js';
import type { BodyBudget, BodyHold } from './body-budget.js';
import { MINIMUM_BODY_PACE, describePace, paceDeadline, type BodyPace } from './body-pace.js';
import { bodySource } from './body-source.js';
import { declaredLength } from './body-state.js';
import { HttpError } from './http-error.js';

/** Largest request body any route accepts (1 MiB, 413 above: docs/reliability.md). */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/** True when the declared length already exceeds the limit: answer 413 before reading anything. */
export function declaresTooLarge(req: IncomingMessage, limit = BODY_LIMIT_BYTES): boolean {
  const length = Number(req.headers['content-length']);
  return Number.isFinite(length) && length > limit;
}

/** How long a body may go without a byte before it is closed (408): a stalled body holds memory and a socket. */
export const BODY_STALL_MS = 30_000;

/** Error codes Node gives a request whose client went away mid-body: the client's doing, not ours. */
const CLIENT_GONE = new Set(['ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ERR_STREAM_PREMATURE_CLOSE']);

/** Whether `error` means the client closed the connection (classified by code, never by message). */
export function isClientAbort(error: unknown): boolean {
  if (error instanceof HttpError) return error.code === 'client_aborted';
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && CLIENT_GONE.has(code);
}

export interface ReadBodyOptions {
  /** Closes the body with 408 after this long without a byte (default `BODY_STALL_MS`). */
  stallMs?: number;
  /** Closes the body with 408 once it falls behind this pace (default `MINIMUM_BODY_PACE`). */
  minimumPace?: BodyPace;
  /** The process-wide budget the body is held against while it arrives (503 when it does not fit). */
  budget?: BodyBudget;
  /** The clock of the stall and the pace (default: the system's). */
  clock?: Clock;
}

const clientAborted = () => new HttpError(400, 'client_aborted', 'the client closed the connection before the body was complete');

/**
 * Reads the raw body (routes that verify an HMAC need the exact bytes), stopping with 413 as soon as
 * it passes `limit` — also for chunked bodies that declare no length — with 408 when it stalls for
 * `stallMs` or falls behind `minimumPace`, and with 503 (Retry-After) when the budget cannot hold it
 * or gives its room to a faster body. A client that goes away mid-body is an `HttpError` with code
 * `client_aborted`. Whatever stops a body gives its share of the budget back at once.
 */
export async function readBody(req: IncomingMessage, limit = BODY_LIMIT_BYTES, options: ReadBodyOptions = {}): Promise<Buffer> {
  if (declaresTooLarge(req, limit)) throw new HttpError(413, 'payload_too_large', `request body over ${limit} bytes`);
  const reading: Reading = {
    limit,
    stallMs: options.stallMs ?? BODY_STALL_MS,
    pace: options.minimumPace ?? MINIMUM_BODY_PACE,
    clock: options.clock ?? systemClock,
    stop: () => {},
  };
  const hold = options.budget?.reserve(declaredLength(req) ?? 0, {
    source: bodySource(req.socket.remoteAddress),
    complete: req.complete,
    evicted: () => reading.stop(evicted()),
  });
  if (options.budget && !hold) throw busy();
  try {
    return await collect(req, reading, hold);
  } finally {
    hold?.release();
  }
}

function busy(): HttpError {
  return new HttpError(503, 'busy', 'too many request bodies are arriving at once; retry shortly', { 'retry-after': '1' });
}

function evicted(): HttpError {
  return new HttpError(503, 'body_evicted', 'the body arrived too slowly while faster ones needed its room; retry shortly', { 'retry-after': '1' });
}

/** One body being read: its limits, its clock, and how its budget stops it (`stop`, set once reading starts). */
interface Reading {
  limit: number;
  stallMs: number;
  pace: BodyPace;
  clock: Clock;
  stop: (error: Error) => void;
}

function collect(req: IncomingMessage, reading: Reading, hold: BodyHold | undefined): Promise<Buffer> {
  const { limit, stallMs, pace, clock } = reading;
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const startedAt = clock.now();
    let cancelTimer = () => {};
    // One timer for both limits: the stall counts from the last byte, the pace's deadline grows with every byte.
    const arm = () => {
      cancelTimer();
      const at = clock.now();
      const stalledAt = at + stallMs;
      const behindAt = paceDeadline(startedAt, size, pace);
      const error =
        behindAt < stalledAt
          ? () => new HttpError(408, 'body_too_slow', `the body arrived slower than ${describePace(pace)}`)
          : () => new HttpError(408, 'body_timeout', `no body bytes for ${Math.round(stallMs / 1000)} s`);
      cancelTimer = clock.setTimer(() => fail(error()), Math.max(0, Math.min(behindAt, stalledAt) - at));
    };
    const done = () => {
      cancelTimer();
      req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
    };
    const fail = (error: Error) => {
      done();
      // The rest is discarded, not buffered: the answer closes the connection.
      req.resume();
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) return fail(new HttpError(413, 'payload_too_large', `request body over ${limit} bytes`));
      if (hold && !hold.arrived(size)) return fail(busy());
      chunks.push(chunk);
      arm();
    };
    const onEnd = () => {
      done();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => fail(isClientAbort(error) ? clientAborted() : error);
    const onClose = () => fail(clientAborted());
    reading.stop = fail;
    req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
    arm();
  });
}
