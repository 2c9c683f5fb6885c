import type pg from 'pg';
import {
  TRIGGER_STATES,
  processOfOwner,
  type Claimed,
  type EnqueueResult,
  type StoredTrigger,
  type TriggerEffects,
  type TriggerToStore,
  type TriggerOutcome,
  type TriggerRepository,
  type TriggerState,
} from '../../core/ports/store.js';
import type { AuditEntry } from '../../core/ports/audit.js';
import { abandoned } from '../process-statements.js';
import { countStates, isMoreDue, moreDueColumn, toJson } from '../sql.js';
import { CLAIM_FOLLOWING_SQL, toTrigger } from '../trigger-repository.js';
import { auditParams } from '../audit-repository.js';
import type { PostgresAnchorRepository } from './anchor-repository.js';
import { CHANGES_CHANNEL, changePayload, type ChangeSigner } from './change-listener.js';
import { owedCte, owedParams, WOKEN_CTE } from './owed-rows-insert.js';
import type { PostgresEventKeyRepository } from './event-key-repository.js';
import type { PostgresOutboxRepository } from './outbox-repository.js';
import { bindable, changes, row, rows, run, texts } from './pg-sql.js';
import type { PostgresTrackedRunRepository } from './tracked-run-repository.js';
import { nextTurn, type GroupCommit } from '../group-commit.js';

type Row = Parameters<typeof toTrigger>[0];
interface PendingEnqueue {
  entry: TriggerToStore;
  resolve: (result: EnqueueResult) => void;
  reject: (error: unknown) => void;
}

const ABANDONED = (table: string) => abandoned(table, 'working');

/**
 * The SQLite claim (see `../trigger-repository.ts`) with `FOR UPDATE SKIP LOCKED`, as for the outbox:
 * a trigger another claimer is taking is skipped, and while it is, a later trigger of its anchor still
 * sees it unfinished and waits.
 */
const CLAIM_SQL = `
UPDATE triggers
SET state = 'working', lease_owner = @owner, lease_process = @process, lease_until = @leaseUntil, attempts = attempts + 1, updated_at = @now
WHERE id = (
    SELECT t.id FROM triggers AS t
    WHERE t.state IN ('pending', 'working')
      AND (t.state = 'pending' OR ${ABANDONED('t')})
      AND t.next_attempt_at <= @now
      AND NOT EXISTS (
        SELECT 1 FROM triggers AS e
        WHERE e.anchor = t.anchor AND e.state IN ('pending', 'working') AND e.id < t.id)
    ORDER BY t.id
    LIMIT 1
    FOR UPDATE OF t SKIP LOCKED)
  AND (triggers.state = 'pending' OR ${ABANDONED('triggers')})
  AND triggers.next_attempt_at <= @now
RETURNING *, ${moreDueColumn('triggers', false)}`;

/** See `noteGrowth`. */
const ANALYZE_AFTER_ROWS = 500;
const ANALYZE_EVERY_MS = 5_000;

/** Held: `owner` claimed the trigger and nobody has claimed it since. */
const HELD = `id = @id AND state = 'working' AND lease_owner = @owner`;
const RELEASED = 'lease_owner = NULL, lease_process = NULL, lease_until = NULL';

/**
 * `finish` in ONE statement, for the same reason as ENQUEUE_SQL: every effect happens only if the
 * guarded update ended the trigger (`FROM ended`), and a failing effect fails the whole statement,
 * so nothing changes. It writes the rows `trackedRuns.insert` (the run and its first observed state),
 * `anchors.link`, `trackedRuns.retrack`, `outbox.add` and `audit.record` write (tracked-run-repository.ts,
 * anchor-repository.ts, outbox-repository.ts, audit-repository.ts): a change to those belongs here too
 * (the store contract tests cover both paths).
 */
const FINISH_SQL = `
WITH ended AS (
  UPDATE triggers
  SET state = @state::text, run_id = COALESCE(@runId::text, run_id), last_error = @error::text, ${RELEASED}, updated_at = @now::bigint
  WHERE id = @id::bigint AND state = 'working' AND lease_owner = @owner::text
  RETURNING id
),
new_run AS (
  INSERT INTO tracked_runs (run_id, anchor, source, title, route, destinations, trigger_key, state,
                            server_updated_at, session_link, key_owner, requester, route_name, transition, tracked, last_seen_at,
                            created_at, updated_at, traceparent)
  SELECT @newRunId::text, @newRunAnchor::text, @newRunSource::text, @newRunTitle::text, @newRunRoute::text, @newRunDestinations::text,
         @newRunTriggerKey::text, @newRunState::text, @newRunServerUpdatedAt::text, @newRunSessionLink::text, @newRunKeyOwner::text,
         @newRunRequester::text, @newRunRouteName::text, 0, 1, NULL, @now::bigint, @now::bigint, @newRunTraceparent::text
  FROM ended WHERE @newRunId::text IS NOT NULL
  ON CONFLICT (run_id) DO NOTHING
  RETURNING run_id, state, server_updated_at
),
first_state AS (
  INSERT INTO run_states (run_id, transition, state, server_updated_at, observed_at)
  SELECT run_id, 0, state, server_updated_at, @now::bigint FROM new_run
  ON CONFLICT DO NOTHING
),
history AS (
  INSERT INTO anchor_runs (anchor, run_id, linked_at)
  SELECT @linkAnchor::text, @linkRunId::text, @now::bigint FROM ended WHERE @linkAnchor::text IS NOT NULL
  ON CONFLICT (anchor, run_id) DO NOTHING
),
linked AS (
  INSERT INTO anchors (anchor, run_id, updated_at)
  SELECT @linkAnchor::text, @linkRunId::text, @now::bigint FROM ended WHERE @linkAnchor::text IS NOT NULL
  ON CONFLICT (anchor) DO UPDATE SET run_id = excluded.run_id, updated_at = excluded.updated_at
),
retracked AS (
  UPDATE tracked_runs SET tracked = 1, updated_at = @now::bigint
  WHERE run_id = @retrack::text AND EXISTS (SELECT 1 FROM ended)
),
${owedCte('EXISTS (SELECT 1 FROM ended)')},
together AS (
  UPDATE triggers
  SET state = @state::text, run_id = COALESCE(@runId::text, run_id), last_error = @error::text, ${RELEASED}, updated_at = @now::bigint
  WHERE id = ANY(@together::bigint[]) AND state = 'working' AND lease_owner = @owner::text AND EXISTS (SELECT 1 FROM ended)
),
audited AS (
  INSERT INTO audit_entries (at, act, person_id, surface, run_id, detail, once_key)
  SELECT @auditAt::bigint, @auditAct::text, @auditPersonId::text, @auditSurface::text, @auditRunId::text, @auditDetail::text, @auditOnceKey::text
  FROM ended WHERE @auditOnceKey::text IS NOT NULL
  ON CONFLICT (once_key) DO NOTHING
),
${WOKEN_CTE}
SELECT (SELECT count(*) FROM ended) AS ended, (SELECT count(*) FROM woken) AS woken`;

/**
 * A whole batch of `enqueue` calls in ONE statement (so one round trip, and atomic without BEGIN and
 * COMMIT): the triggers in submission order, the owed rows of each trigger it stored (a key twice in
 * a batch: the first submission's), every event key, and one notification of each kind. A statement
 * per row inside a transaction would cost a round trip each, and under a flood of requests each
 * round trip waits a whole turn of the busy event loop while the transaction holds its connection.
 * The items are given as parallel arrays; `item` numbers them from 1.
 */
const ENQUEUE_SQL = `
WITH input AS (
  SELECT * FROM unnest(@keys::text[], @kinds::text[], @sources::text[], @anchors::text[], @payloads::text[], @nows::bigint[], @dues::bigint[], @traceparents::text[])
    WITH ORDINALITY AS i(key, kind, source, anchor, payload, now, due, traceparent, item)
),
inserted AS (
  INSERT INTO triggers (key, kind, source, anchor, payload, state, attempts, next_attempt_at, received_at, updated_at, traceparent)
  SELECT key, kind, source, anchor, payload, 'pending', 0, due, now, now, traceparent FROM input ORDER BY item
  ON CONFLICT (key) DO NOTHING
  RETURNING *
),
storing AS (
  SELECT min(input.item) AS item FROM input JOIN inserted ON inserted.key = input.key GROUP BY input.key
),
owed AS (
  INSERT INTO outbox (key, destination, kind, payload, state, attempts, next_attempt_at, created_at, traceparent)
  SELECT o.key, o.destination, o.kind, o.payload, 'pending', 0, o.now, o.now, o.traceparent
  FROM unnest(@owedItems::bigint[], @owedKeys::text[], @owedDestinations::text[], @owedKinds::text[], @owedPayloads::text[], @owedNows::bigint[], @owedTraceparents::text[])
    WITH ORDINALITY AS o(item, key, destination, kind, payload, now, traceparent, position)
  WHERE o.item IN (SELECT item FROM storing)
  ORDER BY o.position
  ON CONFLICT (key) DO NOTHING
  RETURNING 1
),
remembered AS (
  INSERT INTO event_keys (key, seen_at)
  SELECT key, now FROM unnest(@rememberKeys::text[], @rememberNows::bigint[]) AS r(key, now)
  ON CONFLICT (key) DO NOTHING
),
woken AS (
  SELECT pg_notify('${CHANGES_CHANNEL}', ${changePayload('triggers')}) FROM (SELECT 1 FROM inserted LIMIT 1) AS one
  UNION ALL
  SELECT pg_notify('${CHANGES_CHANNEL}', ${changePayload('outbox')}) FROM (SELECT 1 FROM owed LIMIT 1) AS one
)
SELECT inserted.*, (SELECT count(*) FROM woken) AS woken FROM inserted`;

export class PostgresTriggerRepository implements TriggerRepository {
  /** Never (`enqueue`): another replica's uncommitted triggers and rows are not visible to this one's statement. */
  readonly handsOver = false;
  private batch: PendingEnqueue[] = [];
  private storedSinceAnalyze = 0;
  private lastAnalyzeAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly pool: pg.Pool,
    private readonly related: {
      outbox: PostgresOutboxRepository;
      runs: PostgresTrackedRunRepository;
      anchors: PostgresAnchorRepository;
      eventKeys: PostgresEventKeyRepository;
    },
    /** Signs the notifications of what it stores and tells this store's listeners (change-listener.ts). */
    private readonly changes: ChangeSigner,
    private readonly groupCommit: GroupCommit = nextTurn,
  ) {}

  /**
   * Group commit, as on SQLite: the triggers submitted until the batch's commit comes (`GroupCommit`)
   * are stored in one statement (one commit, one round of notifications), each caller answered after it. A batch that
   * fails — a bad trigger, or a deadlock with another replica's batch — is retried one trigger at a
   * time, so one bad trigger fails only its own caller.
   */
  // `handTo` is declined (`handsOver`): handing over could work a trigger, or deliver a row, while
  // another replica's earlier one of the same anchor or destination is still uncommitted.
  enqueue(entry: TriggerToStore): Promise<EnqueueResult> {
    return new Promise((resolve, reject) => {
      this.batch.push({ entry, resolve, reject });
      if (this.batch.length === 1) this.groupCommit(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    const batch = this.batch;
    this.batch = [];
    let results: EnqueueResult[] | undefined;
    try {
      results = await this.enqueueAll(batch.map((item) => item.entry));
    } catch {
      // Fall through: each alone, below.
    }
    for (const [index, item] of batch.entries()) {
      if (results) {
        item.resolve(results[index] as EnqueueResult);
        continue;
      }
      try {
        item.resolve((await this.enqueueAll([item.entry]))[0] as EnqueueResult);
      } catch (error) {
        item.reject(error);
      }
    }
  }

  private async enqueueAll(entries: readonly TriggerToStore[]): Promise<EnqueueResult[]> {
    const items = entries.map(({ owed = [], rememberKeys = [], ...entry }) => ({ ...entry, owed, rememberKeys, dueAt: entry.dueAt ?? entry.now }));
    const owed = items.flatMap((item, index) => item.owed.map((row) => ({ item: index + 1, row, now: item.now })));
    const remembered = items.flatMap((item) => item.rememberKeys.map((key) => ({ key, now: item.now })));
    const inserted = await rows<Row>(this.pool, ENQUEUE_SQL, {
      keys: texts(items.map((item) => item.trigger.key)),
      kinds: texts(items.map((item) => item.trigger.kind)),
      sources: texts(items.map((item) => item.trigger.source)),
      anchors: texts(items.map((item) => item.trigger.anchor)),
      payloads: texts(items.map((item) => toJson(item.trigger.payload))),
      nows: items.map((item) => item.now),
      dues: items.map((item) => item.dueAt),
      traceparents: items.map((item) => item.traceparent ?? null),
      owedItems: owed.map((entry) => entry.item),
      ...owedParams(owed.map((entry) => entry.row)),
      owedNows: owed.map((entry) => entry.now),
      rememberKeys: texts(remembered.map((entry) => entry.key)),
      rememberNows: remembered.map((entry) => entry.now),
      writer: this.changes.signature(),
    });
    this.noteGrowth(inserted.length, Math.max(...items.map((item) => item.now)));
    // Every returned row carries the number of notifications: 1 (triggers) or 2 (and outbox rows).
    const woken = Number((inserted[0] as { woken?: number } | undefined)?.woken ?? 0);
    if (woken > 0) this.changes.wrote('triggers');
    if (woken > 1) this.changes.wrote('outbox');
    const stored = new Map(inserted.map((found) => [found.key, toTrigger(found)]));
    // Keys this batch did not store were stored before (or by another replica meanwhile): read them now.
    const missing = items.map((item) => bindable(item.trigger.key) as string).filter((key) => !stored.has(key));
    const earlier = new Map<string, StoredTrigger>();
    if (missing.length > 0) {
      for (const found of await rows<Row>(this.pool, 'SELECT * FROM triggers WHERE key = ANY(@keys::text[])', { keys: missing }))
        earlier.set(found.key, toTrigger(found));
    }
    const told = new Set<string>();
    return items.map((item) => {
      const key = bindable(item.trigger.key) as string;
      const mine = stored.get(key);
      if (mine && !told.has(key)) {
        told.add(key);
        return { inserted: true, trigger: mine };
      }
      const existing = mine ?? earlier.get(key);
      if (!existing) throw new Error(`trigger ${item.trigger.key} conflicted but cannot be read`);
      return { inserted: false, trigger: existing };
    });
  }

  /**
   * Keeps the planner's statistics of the queues current while a burst fills them. The claims must
   * walk `triggers_unfinished` / `outbox_unsent` in id order and stop at the first claimable row;
   * with statistics that still say "hardly anything pending" (a new database, or a big one whose
   * autovacuum has not analysed since the burst began) PostgreSQL instead reads every pending row,
   * checks each one's anchor and sorts them, on every claim: a backlog of n rows drains in n² time.
   * One ANALYZE (a sample, not a scan) after every ANALYZE_AFTER_ROWS new triggers, at most every
   * ANALYZE_EVERY_MS, in the background; `now` is the callers' (the store reads no clock).
   */
  private noteGrowth(rows: number, now: number): void {
    this.storedSinceAnalyze += rows;
    if (this.storedSinceAnalyze < ANALYZE_AFTER_ROWS || now - this.lastAnalyzeAt < ANALYZE_EVERY_MS) return;
    this.storedSinceAnalyze = 0;
    this.lastAnalyzeAt = now;
    this.pool.query('ANALYZE triggers, outbox').catch(() => {
      // Statistics are an optimisation: autovacuum analyses the tables later anyway.
    });
  }

  async claimNext(owner: string, now: number, leaseMs: number): Promise<Claimed<StoredTrigger> | undefined> {
    const claimed = await row<Row & { more_due: boolean }>(this.pool, CLAIM_SQL, { owner, process: processOfOwner(owner), now, leaseUntil: now + leaseMs });
    return claimed ? { ...toTrigger(claimed), moreDue: isMoreDue(claimed) } : undefined;
  }

  async claimFollowing(head: Pick<StoredTrigger, 'id' | 'anchor'>, owner: string, now: number, leaseMs: number, limit: number): Promise<StoredTrigger[]> {
    const claimed = await rows<Row>(this.pool, CLAIM_FOLLOWING_SQL, {
      owner,
      process: processOfOwner(owner),
      now,
      leaseUntil: now + leaseMs,
      anchor: head.anchor,
      head: head.id,
      limit,
    });
    return claimed.map(toTrigger).sort((a, b) => a.id - b.id);
  }

  async release(ids: readonly number[], owner: string, now: number): Promise<number> {
    if (ids.length === 0) return 0;
    return changes(
      this.pool,
      `UPDATE triggers SET state = 'pending', ${RELEASED}, updated_at = @now
       WHERE id = ANY(@ids::bigint[]) AND state = 'working' AND lease_owner = @owner`,
      { ids: [...ids], owner, now },
    );
  }

  async markCreateAttempted(id: number, owner: string, now: number): Promise<boolean> {
    return this.write(`UPDATE triggers SET create_attempted_at = @now, updated_at = @now WHERE ${HELD}`, { id, owner, now });
  }

  async extendLease(id: number, owner: string, now: number, leaseMs: number): Promise<boolean> {
    return this.write(`UPDATE triggers SET lease_until = @leaseUntil, updated_at = @now WHERE ${HELD}`, { id, owner, now, leaseUntil: now + leaseMs });
  }

  async reschedule(id: number, owner: string, nextAttemptAt: number, error: string, now: number): Promise<boolean> {
    return this.write(
      `UPDATE triggers
       SET state = 'pending', next_attempt_at = @nextAttemptAt, last_error = @error, ${RELEASED}, updated_at = @now
       WHERE ${HELD}`,
      { id, owner, now, nextAttemptAt, error },
    );
  }

  async finish(id: number, owner: string, outcome: TriggerOutcome, effects: TriggerEffects, now: number): Promise<boolean> {
    const run = effects.run;
    const owed = effects.owed ?? [];
    const found = await row<{ ended: number; woken: number }>(this.pool, FINISH_SQL, {
      id,
      owner,
      now,
      state: outcome.state,
      runId: outcome.runId ?? null,
      error: outcome.error ?? null,
      newRunId: run?.runId ?? null,
      newRunAnchor: run?.anchor ?? null,
      newRunSource: run?.source ?? null,
      newRunTitle: run?.title ?? null,
      newRunRoute: run ? toJson(run.route) : null,
      newRunDestinations: run ? toJson(run.destinations) : null,
      newRunTriggerKey: run?.triggerKey ?? null,
      newRunState: run?.state ?? null,
      newRunServerUpdatedAt: run?.serverUpdatedAt ?? null,
      newRunSessionLink: run?.sessionLink ?? null,
      newRunKeyOwner: run?.personalKeyOwner ?? null,
      newRunRequester: run?.askedBy ?? null,
      newRunRouteName: run?.routeName ?? null,
      newRunTraceparent: run?.traceparent ?? null,
      linkAnchor: effects.link?.anchor ?? null,
      linkRunId: effects.link?.runId ?? null,
      retrack: effects.retrack ?? null,
      ...owedParams(owed),
      together: [...(effects.together ?? [])],
      ...auditFields(effects.audit),
      writer: this.changes.signature(),
    });
    if (Number(found?.woken ?? 0) > 0) this.changes.wrote('outbox');
    return (found?.ended ?? 0) > 0;
  }

  async get(id: number): Promise<StoredTrigger | undefined> {
    const found = await row<Row>(this.pool, 'SELECT * FROM triggers WHERE id = @id', { id });
    return found ? toTrigger(found) : undefined;
  }

  async getByKey(key: string): Promise<StoredTrigger | undefined> {
    const found = await row<Row>(this.pool, 'SELECT * FROM triggers WHERE key = @key', { key });
    return found ? toTrigger(found) : undefined;
  }

  async countByState(): Promise<Record<TriggerState, number>> {
    const found = await run<{ state: string; n: number }>(this.pool, 'SELECT state, COUNT(*) AS n FROM triggers GROUP BY state');
    return countStates(TRIGGER_STATES, found.rows);
  }

  private async write(sql: string, params: Record<string, unknown>): Promise<boolean> {
    return (await changes(this.pool, sql, params)) > 0;
  }
}

/** The audit entry's columns as FINISH_SQL's parameters (all null when there is none). */
function auditFields(entry: AuditEntry | undefined): Record<string, unknown> {
  const params: Record<string, unknown> = entry ? auditParams(entry) : {};
  const field = (name: string) => params[name] ?? null;
  return {
    auditAt: field('at'),
    auditAct: field('act'),
    auditPersonId: field('personId'),
    auditSurface: field('surface'),
    auditRunId: field('runId'),
    auditDetail: field('detail'),
    auditOnceKey: field('onceKey'),
  };
}
