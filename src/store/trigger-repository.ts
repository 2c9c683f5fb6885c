import type Database from 'better-sqlite3';
import {
  TRIGGER_STATES,
  processOfOwner,
  type Claimed,
  type NewTrigger,
  type StoredTrigger,
  type TriggerEffects,
  type TriggerToStore,
  type FreeWorker,
  type EnqueueResult,
  type TriggerKind,
  type TriggerOutcome,
  type TriggerRepository,
  type TriggerState,
} from '../core/ports/store.js';
import type { SqliteAnchorRepository } from './anchor-repository.js';
import type { SqliteAuditRepository } from './audit-repository.js';
import type { SqliteEventKeyRepository } from './event-key-repository.js';
import type { SqliteOutboxRepository } from './outbox-repository.js';
import { nextTurn, type GroupCommit } from './group-commit.js';
import { abandoned } from './process-statements.js';
import { countStates, fromJson, isMoreDue, moreDueColumn, stateCountSql, toJson } from './sql.js';
import type { SqliteTrackedRunRepository } from './tracked-run-repository.js';
import { inWriteTransaction } from './write-transaction.js';
import { SPAN } from '../core/ports/trace-names.js';
import { tracing } from '../core/ports/tracing.js';

interface PendingEnqueue {
  entry: TriggerToStore;
  resolve: (result: EnqueueResult) => void;
  reject: (error: unknown) => void;
}

interface Row {
  id: number;
  key: string;
  kind: TriggerKind;
  source: string;
  anchor: string;
  payload: string;
  state: TriggerState;
  attempts: number;
  next_attempt_at: number;
  lease_owner: string | null;
  lease_until: number | null;
  create_attempted_at: number | null;
  run_id: string | null;
  last_error: string | null;
  received_at: number;
  updated_at: number;
  traceparent: string | null;
}

/** A row as both stores return it. */
export function toTrigger(row: Row): StoredTrigger {
  // The payload is the JSON of what `enqueue` was given for this kind: the one place its type is restored.
  const input = { key: row.key, kind: row.kind, source: row.source, anchor: row.anchor, payload: fromJson(row.payload) } as NewTrigger;
  return {
    ...input,
    id: row.id,
    state: row.state,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    leaseOwner: row.lease_owner,
    leaseUntil: row.lease_until,
    createAttemptedAt: row.create_attempted_at,
    runId: row.run_id,
    lastError: row.last_error,
    receivedAt: row.received_at,
    updatedAt: row.updated_at,
    traceparent: row.traceparent,
  };
}

/**
 * The row `enqueue` has just inserted, from what it was given: reading it back (`RETURNING *`) and
 * parsing its payload again cost a tenth of storing a trigger on the acknowledgement's path.
 */
function insertedTrigger(
  trigger: NewTrigger,
  id: number,
  now: number,
  dueAt: number,
  taker: FreeWorker | undefined,
  traceparent: string | undefined,
): StoredTrigger {
  // As stored: JSON has no undefined.
  const input = { ...trigger, payload: trigger.payload ?? null } as NewTrigger;
  return {
    ...input,
    id,
    state: taker ? 'working' : 'pending',
    attempts: taker ? 1 : 0,
    nextAttemptAt: dueAt,
    leaseOwner: taker?.owner ?? null,
    leaseUntil: taker ? now + taker.leaseMs : null,
    createAttemptedAt: null,
    runId: null,
    lastError: null,
    receivedAt: now,
    updatedAt: now,
    traceparent: traceparent ?? null,
  };
}

const ABANDONED = (table: string) => abandoned(table, 'working');

/**
 * The oldest claimable trigger whose anchor has no earlier unfinished trigger. As for the outbox, the
 * outer WHERE repeats the claim condition (PostgreSQL re-checks only that after a row-lock wait) and
 * PostgreSQL adds `FOR UPDATE SKIP LOCKED` to the inner SELECT. `INDEXED BY` is SQLite's: its planner
 * otherwise sorts every pending row per claim (migration 0003); PostgreSQL's picks the partial index itself.
 */
const NEXT_CLAIMABLE_SQL = `
    SELECT t.id FROM triggers AS t INDEXED BY triggers_unfinished
    WHERE t.state IN ('pending', 'working')
      AND (t.state = 'pending' OR ${ABANDONED('t')})
      AND t.next_attempt_at <= @now
      AND NOT EXISTS (
        SELECT 1 FROM triggers AS e
        WHERE e.anchor = t.anchor AND e.state IN ('pending', 'working') AND e.id < t.id)
    ORDER BY t.id
    LIMIT 1`;

const CLAIM_SQL = `
UPDATE triggers
SET state = 'working', lease_owner = @owner, lease_process = @process, lease_until = @leaseUntil, attempts = attempts + 1, updated_at = @now
WHERE id = (${NEXT_CLAIMABLE_SQL})
  AND (state = 'pending' OR ${ABANDONED('triggers')})
  AND next_attempt_at <= @now
RETURNING *, ${moreDueColumn('triggers', true)}`;

/**
 * The follow-ups gathered with a head trigger (`claimFollowing`): the anchor's later follow-ups that are
 * pending or abandoned, before any unfinished trigger of another kind, oldest first. The outer WHERE
 * repeats the claim condition, as CLAIM_SQL's does. Shared with PostgreSQL (`@limit` bound as a number).
 */
export const CLAIM_FOLLOWING_SQL = `
UPDATE triggers
SET state = 'working', lease_owner = @owner, lease_process = @process, lease_until = @leaseUntil, attempts = attempts + 1, updated_at = @now
WHERE id IN (
    SELECT t.id FROM triggers AS t
    WHERE t.anchor = @anchor AND t.id > @head AND t.kind = 'followup'
      AND (t.state = 'pending' OR ${ABANDONED('t')})
      AND NOT EXISTS (
        SELECT 1 FROM triggers AS e
        WHERE e.anchor = @anchor AND e.id > @head AND e.id < t.id AND e.state IN ('pending', 'working') AND e.kind <> 'followup')
    ORDER BY t.id
    LIMIT @limit)
  AND (state = 'pending' OR ${ABANDONED('triggers')})
RETURNING *`;

/**
 * Whether a claim would find a trigger, read without the write lock: most claims find nothing (each
 * stored trigger wakes a chain of workers), and a write transaction that changes nothing still costs
 * a lock and a commit. A trigger stored after this read wakes the workers again.
 */
const ANY_CLAIMABLE_SQL = `SELECT EXISTS (${NEXT_CLAIMABLE_SQL}) AS found`;

/** Held: `owner` claimed the trigger and nobody has claimed it since. */
const HELD = `id = @id AND state = 'working' AND lease_owner = @owner`;

/** Whether the anchor has a trigger not finished: a trigger stored behind it waits its turn (NEXT_CLAIMABLE_SQL). */
const ANCHOR_BUSY_SQL = `SELECT EXISTS (SELECT 1 FROM triggers WHERE anchor = @anchor AND state IN ('pending', 'working')) AS busy`;

export class SqliteTriggerRepository implements TriggerRepository {
  /** One writer at a time: a transaction sees every unfinished trigger and unsent row it could overtake. */
  readonly handsOver = true;
  private readonly insertTrigger;
  private readonly insertHandedOver;
  private readonly anchorBusy;
  private readonly claimTrigger;
  private readonly anyClaimable;
  private readonly createAttempted;
  private readonly extend;
  private readonly toPending;
  private readonly end;
  private readonly claimGathered;
  private readonly giveBack;
  private readonly byId;
  private readonly byKey;
  private readonly countRows;
  private batch: PendingEnqueue[] = [];

  constructor(
    private readonly db: Database.Database,
    private readonly related: {
      outbox: SqliteOutboxRepository;
      runs: SqliteTrackedRunRepository;
      anchors: SqliteAnchorRepository;
      eventKeys: SqliteEventKeyRepository;
      audit: SqliteAuditRepository;
    },
    private readonly groupCommit: GroupCommit = nextTurn,
  ) {
    this.insertTrigger = db.prepare<
      { key: string; kind: string; source: string; anchor: string; payload: string; now: number; dueAt: number; traceparent: string | null },
      { id: number }
    >(
      `INSERT INTO triggers (key, kind, source, anchor, payload, state, attempts, next_attempt_at, received_at, updated_at, traceparent)
       VALUES (@key, @kind, @source, @anchor, @payload, 'pending', 0, @dueAt, @now, @now, @traceparent)
       ON CONFLICT (key) DO NOTHING
       RETURNING id`,
    );
    // As CLAIM_SQL would leave it once claimed: the claim that would follow is saved.
    this.insertHandedOver = db.prepare<
      {
        key: string;
        kind: string;
        source: string;
        anchor: string;
        payload: string;
        now: number;
        owner: string;
        process: string;
        leaseUntil: number;
        traceparent: string | null;
      },
      { id: number }
    >(
      `INSERT INTO triggers (key, kind, source, anchor, payload, state, attempts, next_attempt_at, received_at, updated_at, lease_owner, lease_process, lease_until, traceparent)
       VALUES (@key, @kind, @source, @anchor, @payload, 'working', 1, @now, @now, @now, @owner, @process, @leaseUntil, @traceparent)
       ON CONFLICT (key) DO NOTHING
       RETURNING id`,
    );
    this.anchorBusy = db.prepare<{ anchor: string }, { busy: number }>(ANCHOR_BUSY_SQL);
    this.claimTrigger = db.prepare<{ owner: string; process: string; now: number; leaseUntil: number }, Row & { more_due: number }>(CLAIM_SQL);
    this.anyClaimable = db.prepare<{ now: number }, { found: number }>(ANY_CLAIMABLE_SQL);
    this.createAttempted = db.prepare<{ id: number; owner: string; now: number }>(
      `UPDATE triggers SET create_attempted_at = @now, updated_at = @now WHERE ${HELD}`,
    );
    this.extend = db.prepare<{ id: number; owner: string; now: number; leaseUntil: number }>(
      `UPDATE triggers SET lease_until = @leaseUntil, updated_at = @now WHERE ${HELD}`,
    );
    this.toPending = db.prepare<{ id: number; owner: string; now: number; nextAttemptAt: number; error: string }>(
      `UPDATE triggers
       SET state = 'pending', next_attempt_at = @nextAttemptAt, last_error = @error, lease_owner = NULL, lease_process = NULL, lease_until = NULL, updated_at = @now
       WHERE ${HELD}`,
    );
    this.end = db.prepare<{ id: number; owner: string; now: number; state: string; runId: string | null; error: string | null }>(
      `UPDATE triggers
       SET state = @state, run_id = COALESCE(@runId, run_id), last_error = @error, lease_owner = NULL, lease_process = NULL, lease_until = NULL, updated_at = @now
       WHERE ${HELD}`,
    );
    this.claimGathered = db.prepare<{ owner: string; process: string; now: number; leaseUntil: number; anchor: string; head: number; limit: number }, Row>(
      CLAIM_FOLLOWING_SQL,
    );
    this.giveBack = db.prepare<{ id: number; owner: string; now: number }>(
      `UPDATE triggers SET state = 'pending', lease_owner = NULL, lease_process = NULL, lease_until = NULL, updated_at = @now WHERE ${HELD}`,
    );
    this.byId = db.prepare<[number], Row>('SELECT * FROM triggers WHERE id = ?');
    this.byKey = db.prepare<[string], Row>('SELECT * FROM triggers WHERE key = ?');
    this.countRows = db.prepare<[], { state: string; n: number }>(stateCountSql('triggers'));
  }

  /**
   * Group commit: the triggers submitted until the batch's commit comes (`GroupCommit`: by default the
   * next turn of the event loop; in the service, after the requests already waiting have started, a
   * burst of webhooks) are stored in one transaction, and each caller is answered after that commit.
   * A batch that fails is retried one trigger at a time, so one bad trigger fails only its own caller.
   */
  enqueue(entry: TriggerToStore): Promise<EnqueueResult> {
    return new Promise((resolve, reject) => {
      this.batch.push({ entry, resolve, reject });
      if (this.batch.length === 1) this.groupCommit(() => this.flush());
    });
  }

  private flush(): void {
    const batch = this.batch;
    this.batch = [];
    let results: EnqueueResult[] | undefined;
    try {
      results = this.commitTraced(batch, () => inWriteTransaction(this.db, () => batch.map((item) => this.enqueueWithin(item))));
    } catch {
      // Fall through: each alone, below.
    }
    batch.forEach((item, index) => {
      if (results) return item.resolve(results[index] as EnqueueResult);
      try {
        item.resolve(inWriteTransaction(this.db, () => this.enqueueWithin(item)));
      } catch (error) {
        item.reject(error);
      }
    });
  }

  /**
   * A group commit runs after the requests that filled it: tracing on, it is a span of its own linked
   * to each of their traces, so every request's trace shows the commit it waited for.
   */
  private commitTraced<T>(batch: readonly PendingEnqueue[], commit: () => T): T {
    const traces = tracing();
    if (!traces.on) return commit();
    const links = batch.map((item) => item.entry.traceparent);
    return traces.inSpanSync(
      SPAN.storeTransaction,
      { root: true, links, attributes: { 'db.system.name': 'sqlite', 'agent_bridge.store.batch': batch.length } },
      commit,
    );
  }

  private enqueueWithin({ entry }: PendingEnqueue): EnqueueResult {
    const { trigger, owed = [], now, rememberKeys = [], dueAt = now } = entry;
    const { traceparent } = entry;
    const fields = {
      key: trigger.key,
      kind: trigger.kind,
      source: trigger.source,
      anchor: trigger.anchor,
      payload: toJson(trigger.payload),
      now,
      traceparent: traceparent ?? null,
    };
    // The transaction holds the only write lock: what it reads of the anchor stays true until its commit.
    const wanted = entry.handTo?.trigger;
    const taker = wanted && dueAt <= now && this.anchorBusy.get({ anchor: trigger.anchor })?.busy !== 1 ? wanted : undefined;
    const row = taker
      ? this.insertHandedOver.get({ ...fields, owner: taker.owner, process: processOfOwner(taker.owner), leaseUntil: now + taker.leaseMs })
      : this.insertTrigger.get({ ...fields, dueAt });
    for (const key of rememberKeys) this.related.eventKeys.rememberWithin(key, now);
    if (row) {
      const rowTaker = entry.handTo?.outbox;
      const handedOverRow = rowTaker ? this.related.outbox.addWithinHandingOver(owed, now, rowTaker) : void this.related.outbox.addWithin(owed, now);
      const handedOver = taker !== undefined;
      return { inserted: true, trigger: insertedTrigger(trigger, row.id, now, dueAt, taker, traceparent), handedOver, ...(handedOverRow && { handedOverRow }) };
    }
    const existing = this.byKey.get(trigger.key);
    if (!existing) throw new Error(`trigger ${trigger.key} conflicted but cannot be read`);
    return { inserted: false, trigger: toTrigger(existing) };
  }

  async claimNext(owner: string, now: number, leaseMs: number): Promise<Claimed<StoredTrigger> | undefined> {
    if (this.anyClaimable.get({ now })?.found !== 1) return undefined;
    const row = inWriteTransaction(this.db, () => this.claimTrigger.get({ owner, process: processOfOwner(owner), now, leaseUntil: now + leaseMs }));
    return row ? { ...toTrigger(row), moreDue: isMoreDue(row) } : undefined;
  }

  async claimFollowing(head: Pick<StoredTrigger, 'id' | 'anchor'>, owner: string, now: number, leaseMs: number, limit: number): Promise<StoredTrigger[]> {
    const found = inWriteTransaction(this.db, () =>
      this.claimGathered.all({ owner, process: processOfOwner(owner), now, leaseUntil: now + leaseMs, anchor: head.anchor, head: head.id, limit }),
    );
    return found.map(toTrigger).sort((a, b) => a.id - b.id);
  }

  async release(ids: readonly number[], owner: string, now: number): Promise<number> {
    if (ids.length === 0) return 0;
    return inWriteTransaction(this.db, () => ids.reduce((released, id) => released + this.giveBack.run({ id, owner, now }).changes, 0));
  }

  async markCreateAttempted(id: number, owner: string, now: number): Promise<boolean> {
    return this.write(() => this.createAttempted.run({ id, owner, now }).changes);
  }

  async extendLease(id: number, owner: string, now: number, leaseMs: number): Promise<boolean> {
    return this.write(() => this.extend.run({ id, owner, now, leaseUntil: now + leaseMs }).changes);
  }

  async reschedule(id: number, owner: string, nextAttemptAt: number, error: string, now: number): Promise<boolean> {
    return this.write(() => this.toPending.run({ id, owner, now, nextAttemptAt, error }).changes);
  }

  async finish(id: number, owner: string, outcome: TriggerOutcome, effects: TriggerEffects, now: number): Promise<boolean> {
    return inWriteTransaction(this.db, () => {
      const { changes } = this.end.run({
        id,
        owner,
        now,
        state: outcome.state,
        runId: outcome.runId ?? null,
        error: outcome.error ?? null,
      });
      if (changes === 0) return false;
      for (const other of effects.together ?? [])
        this.end.run({ id: other, owner, now, state: outcome.state, runId: outcome.runId ?? null, error: outcome.error ?? null });
      if (effects.run) this.related.runs.insertWithin(effects.run, now);
      if (effects.link) this.related.anchors.linkWithin(effects.link.anchor, effects.link.runId, now);
      if (effects.retrack !== undefined) this.related.runs.retrackWithin(effects.retrack, now);
      if (effects.owed) this.related.outbox.addWithin(effects.owed, now);
      if (effects.audit) this.related.audit.recordWithin(effects.audit);
      return true;
    });
  }

  async get(id: number): Promise<StoredTrigger | undefined> {
    const row = this.byId.get(id);
    return row ? toTrigger(row) : undefined;
  }

  async getByKey(key: string): Promise<StoredTrigger | undefined> {
    const row = this.byKey.get(key);
    return row ? toTrigger(row) : undefined;
  }

  async countByState(): Promise<Record<TriggerState, number>> {
    return countStates(TRIGGER_STATES, this.countRows.all());
  }

  private write(change: () => number): boolean {
    return inWriteTransaction(this.db, change) > 0;
  }
}
