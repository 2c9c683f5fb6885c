/**
 * Opaque list cursors. A cursor is a keyset position (the last run of a page), so pages neither
 * repeat nor skip runs when runs are created between two requests. It is signed, so a client that
 * builds or edits cursors itself gets a 400 here instead of silently wrong pages in production.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { SORT_FIELDS, isKeyOf, type OrderPosition, type SortField, type SortOrder } from './run-order.js';

/**
 * Position after which the next page starts: the last run of a page, in the order the page was
 * listed in. The order is part of the cursor, so a cursor used with another order is refused.
 */
export interface CursorPosition extends OrderPosition {
  by: SortField;
  order: SortOrder;
}

// A fixed key keeps cursors deterministic across emulator instances; this is tamper evidence for
// client bugs, not security.
const SIGNING_KEY = 'agent-bridge-emulator/cursor/v1';

function sign(payload: string): Buffer {
  return createHmac('sha256', SIGNING_KEY).update(payload).digest().subarray(0, 12);
}

/** Encodes a position as `base64url(JSON).base64url(signature)`. */
export function encodeCursor(position: CursorPosition): string {
  const data = { v: 2, b: position.by, o: position.order, k: position.key, s: position.seq };
  const payload = Buffer.from(JSON.stringify(data)).toString('base64url');
  return `${payload}.${sign(payload).toString('base64url')}`;
}

/** Decodes a cursor; `undefined` for anything malformed or not signed by us. */
export function decodeCursor(cursor: string): CursorPosition | undefined {
  const parts = cursor.split('.');
  if (parts.length !== 2) return undefined;
  const [payload = '', signature = ''] = parts;
  if (!/^[A-Za-z0-9_-]+$/.test(payload) || !/^[A-Za-z0-9_-]+$/.test(signature)) return undefined;
  // Compare the text, not decoded bytes: base64 decoding ignores trailing characters and bits.
  const given = Buffer.from(signature);
  const expected = Buffer.from(sign(payload).toString('base64url'));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    const data: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    if (typeof data !== 'object' || data === null) return undefined;
    const { v, b, o, k, s } = data as Record<string, unknown>;
    if (v !== 2 || !(SORT_FIELDS as readonly unknown[]).includes(b) || (o !== 'asc' && o !== 'desc')) return undefined;
    const by = b as SortField;
    if (!isKeyOf(by, k) || !Number.isSafeInteger(s)) return undefined;
    return { by, order: o, key: k, seq: s as number };
  } catch {
    return undefined;
  }
}
