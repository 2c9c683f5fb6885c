import type pg from 'pg';
import {
  OUTBOX_STATES,
  processOfOwner,
  type Claimed,
  type NewOutboxRow,
  type OutboxRepository,
  type OutboxRow,
  type OutboxState,
} from '../../core/ports/store.js';
import { toOutboxRow } from '../outbox-repository.js';
import { abandoned } from '../process-statements.js';
import { compactParams, countStates, isMoreDue, moreDueColumn, outboxListSql, toJson } from '../sql.js';
import type { ChangeSigner } from './change-listener.js';
import { changes, row, rows, run } from './pg-sql.js';
import { owedCte, owedParams, WOKEN_CTE } from './owed-rows-insert.js';

type Row = Parameters<typeof toOutboxRow>[0];

const ABANDONED = (table: string) => abandoned(table, 'sending');

/**
 * The SQLite claim (see `../outbox-repository.ts`) with `FOR UPDATE SKIP LOCKED`: concurrent claimers
 * skip a row another is claiming instead of queueing behind it. The outer WHERE repeats the claim
 * condition, which READ COMMITTED re-checks after a lock wait, so a race's loser updates nothing.
 * An earlier unsent row of the same destination that another claimer holds locked still counts as
 * unsent (its old version is what we see), so a destination stays one row at a time, in order.
 */
const CLAIM_SQL = `
UPDATE outbox
SET state = 'sending', lease_owner = @owner, lease_process = @process, lease_until = @leaseUntil, attempts = attempts + 1
WHERE id = (
    SELECT o.id FROM outbox AS o
    WHERE o.state IN ('pending', 'sending')
      AND (o.state = 'pending' OR ${ABANDONED('o')})
      AND o.next_attempt_at <= @now
      AND NOT EXISTS (
        SELECT 1 FROM outbox AS e
        WHERE e.destination = o.destination AND e.state IN ('pending', 'sending') AND e.id < o.id)
    ORDER BY o.id
    LIMIT 1
    FOR UPDATE OF o SKIP LOCKED)
  AND (outbox.state = 'pending' OR ${ABANDONED('outbox')}) AND outbox.next_attempt_at <= @now
RETURNING *, ${moreDueColumn('outbox', false)}`;

/**
 * `markSent` and CLAIM_SQL in ONE statement (a delivering worker's next step, one round trip instead of
 * two). Both see the statement's snapshot, where the row being marked is still `sending`: the claim
 * does not count it as an earlier unsent row of its destination when `sent` marked it, so the
 * destination's next row is claimable at once, as after a separate markSent. The two updates never
 * touch the same row (the claim skips @id, which is ours and leased).
 */
const SENT_CLAIM_SQL = `
WITH sent AS (
  UPDATE outbox SET state = 'sent', result = @result::text, sent_at = @now::bigint, lease_owner = NULL, lease_process = NULL, lease_until = NULL
  WHERE id = @id::bigint AND state = 'sending' AND lease_owner = @owner::text
  RETURNING id
),
claimed AS (
  UPDATE outbox
  SET state = 'sending', lease_owner = @owner::text, lease_process = @process::text, lease_until = @leaseUntil::bigint, attempts = attempts + 1
  WHERE id = (
      SELECT o.id FROM outbox AS o
      WHERE o.state IN ('pending', 'sending')
        AND (o.state = 'pending' OR ${ABANDONED('o')})
        AND o.next_attempt_at <= @now::bigint
        AND o.id <> @id::bigint
        AND NOT EXISTS (
          SELECT 1 FROM outbox AS e
          WHERE e.destination = o.destination AND e.state IN ('pending', 'sending') AND e.id < o.id
            AND e.id NOT IN (SELECT id FROM sent))
      ORDER BY o.id
      LIMIT 1
      FOR UPDATE OF o SKIP LOCKED)
    AND (outbox.state = 'pending' OR ${ABANDONED('outbox')}) AND outbox.next_attempt_at <= @now::bigint
  RETURNING *, ${moreDueColumn('outbox', false)}
)
SELECT (SELECT count(*) FROM sent) AS sent, claimed.* FROM (SELECT 1) AS one LEFT JOIN claimed ON true`;

/** Held: `owner` claimed the row and nobody has claimed it since. */
const HELD = `id = @id AND state = 'sending' AND lease_owner = @owner`;
const RELEASED = 'lease_owner = NULL, lease_process = NULL, lease_until = NULL';

/**
 * Rows in ONE statement, in the order given (ids follow it, and so does delivery per destination), with
 * one wake-up of every replica if any row was new: atomic without BEGIN and COMMIT, one round trip
 * however many rows.
 */
const INSERT_SQL = `
WITH ${owedCte()},
${WOKEN_CTE}
SELECT (SELECT count(*) FROM owed) AS inserted, (SELECT count(*) FROM woken) AS woken`;

export class PostgresOutboxRepository implements OutboxRepository {
  constructor(
    private readonly pool: pg.Pool,
    /** Signs the notification of what it adds and tells this store's listeners (change-listener.ts). */
    private readonly changes: ChangeSigner,
  ) {}

  async add(rows: readonly NewOutboxRow[], now: number): Promise<number> {
    if (rows.length === 0) return 0;
    const found = await row<{ inserted: number; woken: number }>(this.pool, INSERT_SQL, {
      ...owedParams(rows),
      now,
      writer: this.changes.signature(),
    });
    if (Number(found?.woken ?? 0) > 0) this.changes.wrote('outbox');
    return Number(found?.inserted ?? 0);
  }

  async claimNext(owner: string, now: number, leaseMs: number): Promise<Claimed<OutboxRow> | undefined> {
    const claimed = await row<Row & { more_due: boolean }>(this.pool, CLAIM_SQL, { owner, process: processOfOwner(owner), now, leaseUntil: now + leaseMs });
    return claimed ? { ...toOutboxRow(claimed), moreDue: isMoreDue(claimed) } : undefined;
  }

  async markSent(id: number, owner: string, result: unknown, now: number): Promise<boolean> {
    const sql = `UPDATE outbox SET state = 'sent', result = @result, sent_at = @now, ${RELEASED} WHERE ${HELD}`;
    return (await changes(this.pool, sql, { id, owner, result: toJson(result ?? null), now })) > 0;
  }

  async markSentAndClaimNext(
    id: number,
    owner: string,
    result: unknown,
    now: number,
    leaseMs: number,
  ): Promise<{ sent: boolean; next: Claimed<OutboxRow> | undefined }> {
    const found = await row<Omit<Row, 'id'> & { id: number | null; sent: number; more_due: boolean | null }>(this.pool, SENT_CLAIM_SQL, {
      id,
      owner,
      process: processOfOwner(owner),
      result: toJson(result ?? null),
      now,
      leaseUntil: now + leaseMs,
    });
    // LEFT JOIN: a row with only `sent` when nothing was claimed.
    const next = found?.id == null ? undefined : { ...toOutboxRow({ ...found, id: found.id }), moreDue: isMoreDue(found) };
    return { sent: Number(found?.sent ?? 0) > 0, next };
  }

  async extendLease(id: number, owner: string, now: number, leaseMs: number): Promise<boolean> {
    return (await changes(this.pool, `UPDATE outbox SET lease_until = @leaseUntil WHERE ${HELD}`, { id, owner, leaseUntil: now + leaseMs })) > 0;
  }

  async retryLater(id: number, owner: string, nextAttemptAt: number, error: string): Promise<boolean> {
    const sql = `UPDATE outbox SET state = 'pending', next_attempt_at = @nextAttemptAt, last_error = @error, ${RELEASED} WHERE ${HELD}`;
    return (await changes(this.pool, sql, { id, owner, nextAttemptAt, error })) > 0;
  }

  async markFailed(id: number, owner: string, error: string): Promise<boolean> {
    const sql = `UPDATE outbox SET state = 'failed', last_error = @error, ${RELEASED} WHERE ${HELD}`;
    return (await changes(this.pool, sql, { id, owner, error })) > 0;
  }

  async getByKey(key: string): Promise<OutboxRow | undefined> {
    const found = await row<Row>(this.pool, 'SELECT * FROM outbox WHERE key = @key', { key });
    return found ? toOutboxRow(found) : undefined;
  }

  async list(options: { destination?: string; state?: OutboxState } = {}): Promise<OutboxRow[]> {
    const found = await rows<Row>(this.pool, outboxListSql(options), compactParams(options));
    return found.map(toOutboxRow);
  }

  async counts(): Promise<Record<OutboxState, number>> {
    const found = await run<{ state: string; n: number }>(this.pool, 'SELECT state, COUNT(*) AS n FROM outbox GROUP BY state');
    return countStates(OUTBOX_STATES, found.rows);
  }
}
