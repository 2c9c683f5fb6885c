import type { IncomingMessage } from 'node:http';
import { HttpError } from './http-error.js';

/** Largest request body any route accepts (design: 1 MiB, 413 above). */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/** True when the declared length already exceeds the limit: answer 413 before reading anything. */
export function declaresTooLarge(req: IncomingMessage, limit = BODY_LIMIT_BYTES): boolean {
  const length = Number(req.headers['content-length']);
  return Number.isFinite(length) && length > limit;
}

/**
 * Reads the raw body (routes that verify an HMAC need the exact bytes), stopping with 413 as soon as
 * it passes `limit` — also for chunked bodies that declare no length.
 */
export async function readBody(req: IncomingMessage, limit = BODY_LIMIT_BYTES): Promise<Buffer> {
  if (declaresTooLarge(req, limit)) throw new HttpError(413, 'payload_too_large', `request body over ${limit} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limit) {
      req.resume();
      throw new HttpError(413, 'payload_too_large', `request body over ${limit} bytes`);
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}
