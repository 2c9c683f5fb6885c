/**
 * Owed outbox rows written inside a larger statement (one round trip, atomic without BEGIN and
 * COMMIT): the `owed` CTE inserts them in the order given — ids follow it, and so does delivery per
 * destination — keeping a row whose key is already stored as it is; the `woken` CTE then tells every
 * replica once if any row was new, signed by the writing store (change-listener.ts). Parameters:
 * `owedParams`, `@now` and `@writer` (`ChangeSigner.signature()`); tell the signer when `woken` > 0.
 */
import type { NewOutboxRow } from '../../core/ports/store.js';
import { toJson } from '../sql.js';
import { CHANGES_CHANNEL, changePayload } from './change-listener.js';
import { texts } from './pg-sql.js';

/** The `owed AS (…)` CTE; `guard` (e.g. `EXISTS (SELECT 1 FROM moved)`) makes the insert conditional on an earlier CTE. */
export function owedCte(guard?: string): string {
  return `owed AS (
  INSERT INTO outbox (key, destination, kind, payload, state, attempts, next_attempt_at, created_at, traceparent)
  SELECT o.key, o.destination, o.kind, o.payload, 'pending', 0, @now::bigint, @now::bigint, o.traceparent
  FROM unnest(@owedKeys::text[], @owedDestinations::text[], @owedKinds::text[], @owedPayloads::text[], @owedTraceparents::text[])
    WITH ORDINALITY AS o(key, destination, kind, payload, traceparent, position)${guard ? `\n  WHERE ${guard}` : ''}
  ORDER BY o.position
  ON CONFLICT (key) DO NOTHING
  RETURNING 1
)`;
}

/** The `woken AS (…)` CTE: one notification when `owed` inserted anything. */
export const WOKEN_CTE = `woken AS (
  SELECT pg_notify('${CHANGES_CHANNEL}', ${changePayload('outbox')}) FROM (SELECT 1 FROM owed LIMIT 1) AS one
)`;

/** The parameters of `owedCte`, one array per column. */
export function owedParams(
  rows: readonly NewOutboxRow[],
): Record<'owedKeys' | 'owedDestinations' | 'owedKinds' | 'owedPayloads' | 'owedTraceparents', Array<string | null>> {
  return {
    owedKeys: texts(rows.map((item) => item.key)),
    owedDestinations: texts(rows.map((item) => item.destination)),
    owedKinds: texts(rows.map((item) => item.kind)),
    owedPayloads: texts(rows.map((item) => toJson(item.payload))),
    owedTraceparents: rows.map((item) => item.traceparent ?? null),
  };
}
