/**
 * Small request/response helpers shared by the route files: JSON answers, bounded JSON bodies and
 * the field checks the endpoints repeat.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ProblemError, badRequest } from './problem.js';

/** The run API refuses bodies above 1 MiB. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Past this we stop draining and cut the connection: answering 413 while the client is still
 * writing makes most clients report a reset instead of the answer, so moderate overshoots are read
 * to the end first, and only absurd ones are cut.
 */
const DRAIN_LIMIT_BYTES = 16 * MAX_BODY_BYTES;

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  });
  res.end(text);
}

export function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(html),
    'cache-control': 'no-store',
  });
  res.end(html);
}

/** Reads the raw body, refusing (413) anything above `MAX_BODY_BYTES`. */
export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > DRAIN_LIMIT_BYTES) {
        req.destroy();
        return;
      }
      if (size > MAX_BODY_BYTES) {
        tooLarge = true;
        chunks.length = 0;
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (tooLarge) {
        reject(new ProblemError(413, `request body exceeds ${MAX_BODY_BYTES} bytes`));
      } else {
        resolve(Buffer.concat(chunks));
      }
    });
    req.on('error', reject);
    req.on('close', () => {
      if (!req.complete) reject(new Error('request aborted'));
    });
  });
}

/**
 * Reads a JSON object body. An empty body counts as `{}` so body-less POSTs such as cancel work;
 * anything else that is not a JSON object is a 400.
 */
export async function readJsonObject(req: IncomingMessage): Promise<Record<string, unknown>> {
  const raw = await readBody(req);
  const text = raw.toString('utf8').trim();
  if (text === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw badRequest('request body is not valid JSON');
  }
  if (!isPlainObject(parsed)) throw badRequest('request body must be a JSON object');
  return parsed;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A required string that is not blank. */
export function requireText(body: Record<string, unknown>, field: string): string {
  const value = body[field];
  if (value === undefined || value === null) throw badRequest(`${field} is required`);
  if (typeof value !== 'string' || value.trim() === '') throw badRequest(`${field} must be a non-empty string`);
  return value;
}

/** An optional string; `null` is read as absent, as the real service's schema does. */
export function optionalString(body: Record<string, unknown>, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw badRequest(`${field} must be a string`);
  return value;
}

/** Decodes one path segment; a broken escape can only name a run that does not exist. */
export function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
