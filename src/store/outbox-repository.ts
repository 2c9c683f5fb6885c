import type Database from 'better-sqlite3';
import {
  OUTBOX_STATES,
  processOfOwner,
  type Claimed,
  type NewOutboxRow,
  type OutboxRepository,
  type OutboxRow,
  type OutboxState,
  type FreeWorker,
} from '../core/ports/store.js';
import { abandoned } from './process-statements.js';
import { compactParams, countStates, fromJson, isMoreDue, moreDueColumn, outboxListSql, stateCountSql, toJson } from './sql.js';
import { inWriteTransaction } from './write-transaction.js';

interface Row {
  id: number;
  key: string;
  destination: string;
  kind: string;
  payload: string;
  state: OutboxState;
  attempts: number;
  next_attempt_at: number;
  lease_owner: string | null;
  lease_until: number | null;
  result: string | null;
  last_error: string | null;
  created_at: number;
  sent_at: number | null;
  traceparent: string | null;
}

/** A row as both stores return it (PostgreSQL reads BIGINT as numbers, so its rows have the same shape). */
export function toOutboxRow(row: Row): OutboxRow {
  return {
    id: row.id,
    key: row.key,
    destination: row.destination,
    kind: row.kind,
    payload: fromJson(row.payload),
    state: row.state,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    leaseOwner: row.lease_owner,
    leaseUntil: row.lease_until,
    result: fromJson(row.result),
    lastError: row.last_error,
    createdAt: row.created_at,
    sentAt: row.sent_at,
    traceparent: row.traceparent,
  };
}

/** The row `addWithinHandingOver` has just stored claimed, from what it was given (as `toOutboxRow` would read it). */
function handedOverRow(row: NewOutboxRow, id: number, now: number, owner: string, leaseUntil: number): OutboxRow {
  return {
    id,
    key: row.key,
    destination: row.destination,
    kind: row.kind,
    payload: row.payload ?? null,
    state: 'sending',
    attempts: 1,
    nextAttemptAt: now,
    leaseOwner: owner,
    leaseUntil,
    result: null,
    lastError: null,
    createdAt: now,
    sentAt: null,
    traceparent: row.traceparent ?? null,
  };
}

const ABANDONED = (table: string) => abandoned(table, 'sending');

/** Claimable: pending or abandoned; and due. */
const CLAIMABLE = `(outbox.state = 'pending' OR ${ABANDONED('outbox')}) AND outbox.next_attempt_at <= @now`;

/**
 * The oldest claimable row whose destination has no earlier unsent row. The outer WHERE repeats the
 * claim condition so that on PostgreSQL (READ COMMITTED re-checks only the outer WHERE after waiting
 * for a row lock) the loser of a race updates nothing; PostgreSQL adds `FOR UPDATE SKIP LOCKED` to the
 * inner SELECT. SQLite runs the whole statement under the write lock. `INDEXED BY` is SQLite's: its
 * planner otherwise sorts every pending row per claim (migration 0003: 10.8 → 0.07 ms per claim with
 * 10,000 pending rows); PostgreSQL's planner picks the partial index itself.
 */
const NEXT_CLAIMABLE_SQL = `
    SELECT o.id FROM outbox AS o INDEXED BY outbox_unsent
    WHERE o.state IN ('pending', 'sending')
      AND (o.state = 'pending' OR ${ABANDONED('o')})
      AND o.next_attempt_at <= @now
      AND NOT EXISTS (
        SELECT 1 FROM outbox AS e
        WHERE e.destination = o.destination AND e.state IN ('pending', 'sending') AND e.id < o.id)
    ORDER BY o.id
    LIMIT 1`;

const CLAIM_SQL = `
UPDATE outbox
SET state = 'sending', lease_owner = @owner, lease_process = @process, lease_until = @leaseUntil, attempts = attempts + 1
WHERE id = (${NEXT_CLAIMABLE_SQL})
  AND ${CLAIMABLE}
RETURNING *, ${moreDueColumn('outbox', true)}`;

/**
 * Whether a claim would find a row, read without the write lock: most claims find nothing (every
 * stored trigger wakes a worker), and a write transaction that changes nothing still costs a lock and
 * a commit. A row added after this read wakes the workers again.
 */
const ANY_CLAIMABLE_SQL = `SELECT EXISTS (${NEXT_CLAIMABLE_SQL}) AS found`;

/** Whether the destination has a row not yet sent: a row added behind it waits its turn (NEXT_CLAIMABLE_SQL). */
const DESTINATION_BUSY_SQL = `SELECT EXISTS (SELECT 1 FROM outbox WHERE destination = @destination AND state IN ('pending', 'sending')) AS busy`;

/** Held: `owner` claimed the row and nobody has claimed it since. */
const HELD = `id = @id AND state = 'sending' AND lease_owner = @owner`;

export class SqliteOutboxRepository implements OutboxRepository {
  private readonly insertRow;
  private readonly insertHandedOver;
  private readonly destinationBusy;
  private readonly claimRow;
  private readonly anyClaimable;
  private readonly sentRow;
  private readonly extendRow;
  private readonly retryRow;
  private readonly failRow;
  private readonly byKey;
  /** One prepared statement per combination of conditions (at most four). */
  private readonly listRows = new Map<string, Database.Statement<Record<string, unknown>, Row>>();
  private readonly countRows;

  constructor(private readonly db: Database.Database) {
    this.insertRow = db.prepare<{ key: string; destination: string; kind: string; payload: string; now: number; traceparent: string | null }>(
      `INSERT INTO outbox (key, destination, kind, payload, state, attempts, next_attempt_at, created_at, traceparent)
       VALUES (@key, @destination, @kind, @payload, 'pending', 0, @now, @now, @traceparent)
       ON CONFLICT (key) DO NOTHING`,
    );
    // As CLAIM_SQL would leave it once claimed: the claim that would follow is saved.
    this.insertHandedOver = db.prepare<
      {
        key: string;
        destination: string;
        kind: string;
        payload: string;
        now: number;
        owner: string;
        process: string;
        leaseUntil: number;
        traceparent: string | null;
      },
      { id: number }
    >(
      `INSERT INTO outbox (key, destination, kind, payload, state, attempts, next_attempt_at, created_at, lease_owner, lease_process, lease_until, traceparent)
       VALUES (@key, @destination, @kind, @payload, 'sending', 1, @now, @now, @owner, @process, @leaseUntil, @traceparent)
       ON CONFLICT (key) DO NOTHING
       RETURNING id`,
    );
    this.destinationBusy = db.prepare<{ destination: string }, { busy: number }>(DESTINATION_BUSY_SQL);
    this.claimRow = db.prepare<{ owner: string; process: string; now: number; leaseUntil: number }, Row & { more_due: number }>(CLAIM_SQL);
    this.anyClaimable = db.prepare<{ now: number }, { found: number }>(ANY_CLAIMABLE_SQL);
    this.sentRow = db.prepare<{ id: number; owner: string; result: string; now: number }>(
      `UPDATE outbox SET state = 'sent', result = @result, sent_at = @now, lease_owner = NULL, lease_process = NULL, lease_until = NULL
       WHERE ${HELD}`,
    );
    this.extendRow = db.prepare<{ id: number; owner: string; leaseUntil: number }>(`UPDATE outbox SET lease_until = @leaseUntil WHERE ${HELD}`);
    this.retryRow = db.prepare<{ id: number; owner: string; nextAttemptAt: number; error: string }>(
      `UPDATE outbox SET state = 'pending', next_attempt_at = @nextAttemptAt, last_error = @error, lease_owner = NULL, lease_process = NULL, lease_until = NULL
       WHERE ${HELD}`,
    );
    this.failRow = db.prepare<{ id: number; owner: string; error: string }>(
      `UPDATE outbox SET state = 'failed', last_error = @error, lease_owner = NULL, lease_process = NULL, lease_until = NULL
       WHERE ${HELD}`,
    );
    this.byKey = db.prepare<[string], Row>('SELECT * FROM outbox WHERE key = ?');
    this.countRows = db.prepare<[], { state: string; n: number }>(stateCountSql('outbox'));
  }

  /** Inserts rows inside the caller's transaction; returns how many were new. */
  addWithin(rows: readonly NewOutboxRow[], now: number): number {
    let inserted = 0;
    for (const row of rows) {
      const { changes } = this.insertRow.run({
        key: row.key,
        destination: row.destination,
        kind: row.kind,
        payload: toJson(row.payload),
        now,
        traceparent: row.traceparent ?? null,
      });
      inserted += changes;
    }
    return inserted;
  }

  /**
   * `addWithin`, handing the first new row whose destination has nothing unsent over to `taker` (stored
   * `sending`, leased to it, as a claim would leave it): that row, or undefined. The caller's write
   * transaction holds the only write lock, so what it reads of the destination stays true until its commit.
   */
  addWithinHandingOver(rows: readonly NewOutboxRow[], now: number, taker: FreeWorker): OutboxRow | undefined {
    let handed: OutboxRow | undefined;
    for (const row of rows) {
      if (handed || this.destinationBusy.get({ destination: row.destination })?.busy === 1) {
        this.addWithin([row], now);
        continue;
      }
      const leaseUntil = now + taker.leaseMs;
      const fields = { key: row.key, destination: row.destination, kind: row.kind, payload: toJson(row.payload), now, traceparent: row.traceparent ?? null };
      const inserted = this.insertHandedOver.get({ ...fields, owner: taker.owner, process: processOfOwner(taker.owner), leaseUntil });
      if (inserted) handed = handedOverRow(row, inserted.id, now, taker.owner, leaseUntil);
    }
    return handed;
  }

  async add(rows: readonly NewOutboxRow[], now: number): Promise<number> {
    if (rows.length === 0) return 0;
    return inWriteTransaction(this.db, () => this.addWithin(rows, now));
  }

  async claimNext(owner: string, now: number, leaseMs: number): Promise<Claimed<OutboxRow> | undefined> {
    if (this.anyClaimable.get({ now })?.found !== 1) return undefined;
    const row = inWriteTransaction(this.db, () => this.claimRow.get({ owner, process: processOfOwner(owner), now, leaseUntil: now + leaseMs }));
    return row ? { ...toOutboxRow(row), moreDue: isMoreDue(row) } : undefined;
  }

  async markSent(id: number, owner: string, result: unknown, now: number): Promise<boolean> {
    return this.write(() => this.sentRow.run({ id, owner, result: toJson(result ?? null), now }).changes);
  }

  async markSentAndClaimNext(
    id: number,
    owner: string,
    result: unknown,
    now: number,
    leaseMs: number,
  ): Promise<{ sent: boolean; next: Claimed<OutboxRow> | undefined }> {
    const found = inWriteTransaction(this.db, () => {
      const sent = this.sentRow.run({ id, owner, result: toJson(result ?? null), now }).changes > 0;
      return { sent, next: this.claimRow.get({ owner, process: processOfOwner(owner), now, leaseUntil: now + leaseMs }) };
    });
    return { sent: found.sent, next: found.next ? { ...toOutboxRow(found.next), moreDue: isMoreDue(found.next) } : undefined };
  }

  async extendLease(id: number, owner: string, now: number, leaseMs: number): Promise<boolean> {
    return this.write(() => this.extendRow.run({ id, owner, leaseUntil: now + leaseMs }).changes);
  }

  async retryLater(id: number, owner: string, nextAttemptAt: number, error: string): Promise<boolean> {
    return this.write(() => this.retryRow.run({ id, owner, nextAttemptAt, error }).changes);
  }

  async markFailed(id: number, owner: string, error: string): Promise<boolean> {
    return this.write(() => this.failRow.run({ id, owner, error }).changes);
  }

  async getByKey(key: string): Promise<OutboxRow | undefined> {
    const row = this.byKey.get(key);
    return row ? toOutboxRow(row) : undefined;
  }

  async list(options: { destination?: string; state?: OutboxState } = {}): Promise<OutboxRow[]> {
    const sql = outboxListSql(options);
    let statement = this.listRows.get(sql);
    if (!statement) {
      statement = this.db.prepare<Record<string, unknown>, Row>(sql);
      this.listRows.set(sql, statement);
    }
    return statement.all(compactParams(options)).map(toOutboxRow);
  }

  async counts(): Promise<Record<OutboxState, number>> {
    return countStates(OUTBOX_STATES, this.countRows.all());
  }

  private write(change: () => number): boolean {
    return inWriteTransaction(this.db, change) > 0;
  }
}
