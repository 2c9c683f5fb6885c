import type pg from 'pg';
import {
  TRIGGER_STATES,
  processOfOwner,
  type NewOutboxRow,
  type NewTrigger,
  type StoredTrigger,
  type TriggerEffects,
  type TriggerOutcome,
  type TriggerRepository,
  type TriggerState,
} from '../../core/ports/store.js';
import { holderGone } from '../process-repository.js';
import { countStates, toJson } from '../sql.js';
import { toTrigger } from '../trigger-repository.js';
import type { PostgresAnchorRepository } from './anchor-repository.js';
import { CHANGES_CHANNEL } from './change-listener.js';
import type { PostgresEventKeyRepository } from './event-key-repository.js';
import type { PostgresOutboxRepository } from './outbox-repository.js';
import { changes, Rollback, row, run, transaction } from './pg-sql.js';
import type { PostgresTrackedRunRepository } from './tracked-run-repository.js';

type Row = Parameters<typeof toTrigger>[0];
type EnqueueResult = { inserted: boolean; trigger: StoredTrigger };

interface PendingEnqueue {
  trigger: NewTrigger;
  owed: NewOutboxRow[];
  now: number;
  rememberKeys: readonly string[];
  resolve: (result: EnqueueResult) => void;
  reject: (error: unknown) => void;
}

/** Working, but its holder is done with it: the lease ran out or its process is gone. */
const ABANDONED = (table: string) => `(${table}.state = 'working' AND (${table}.lease_until <= @now OR ${holderGone(`${table}.lease_process`)}))`;

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
RETURNING *`;

/** Held: `owner` claimed the trigger and nobody has claimed it since. */
const HELD = `id = @id AND state = 'working' AND lease_owner = @owner`;
const RELEASED = 'lease_owner = NULL, lease_process = NULL, lease_until = NULL';

const INSERT_SQL = `
INSERT INTO triggers (key, kind, source, anchor, payload, state, attempts, next_attempt_at, received_at, updated_at)
VALUES (@key, @kind, @source, @anchor, @payload, 'pending', 0, @now, @now, @now)
ON CONFLICT (key) DO NOTHING
RETURNING *`;

export class PostgresTriggerRepository implements TriggerRepository {
  private batch: PendingEnqueue[] = [];

  constructor(
    private readonly pool: pg.Pool,
    private readonly related: {
      outbox: PostgresOutboxRepository;
      runs: PostgresTrackedRunRepository;
      anchors: PostgresAnchorRepository;
      eventKeys: PostgresEventKeyRepository;
    },
  ) {}

  /**
   * Group commit, as on SQLite: the triggers submitted in one turn of the event loop are stored in one
   * transaction (one commit, one round of notifications), each caller answered after it. A batch that
   * fails — a bad trigger, or a deadlock with another replica's batch — is retried one trigger at a
   * time, so one bad trigger fails only its own caller.
   */
  enqueue(trigger: NewTrigger, owed: NewOutboxRow[], now: number, rememberKeys: readonly string[] = []): Promise<EnqueueResult> {
    return new Promise((resolve, reject) => {
      this.batch.push({ trigger, owed, now, rememberKeys, resolve, reject });
      if (this.batch.length === 1) setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    const batch = this.batch;
    this.batch = [];
    let results: EnqueueResult[] | undefined;
    try {
      results = await transaction(this.pool, async (client) => {
        const stored: EnqueueResult[] = [];
        for (const item of batch) stored.push(await this.enqueueWithin(client, item));
        return stored;
      });
    } catch {
      // Fall through: each alone, below.
    }
    for (const [index, item] of batch.entries()) {
      if (results) {
        item.resolve(results[index] as EnqueueResult);
        continue;
      }
      try {
        item.resolve(await transaction(this.pool, (client) => this.enqueueWithin(client, item)));
      } catch (error) {
        item.reject(error);
      }
    }
  }

  private async enqueueWithin(client: pg.PoolClient, item: PendingEnqueue): Promise<EnqueueResult> {
    const { trigger, owed, now } = item;
    const inserted = await row<Row>(client, INSERT_SQL, {
      key: trigger.key,
      kind: trigger.kind,
      source: trigger.source,
      anchor: trigger.anchor,
      payload: toJson(trigger.payload),
      now,
    });
    for (const key of item.rememberKeys) await this.related.eventKeys.rememberWithin(client, key, now);
    if (inserted) {
      await this.related.outbox.addWithin(client, owed, now);
      await client.query(`SELECT pg_notify('${CHANGES_CHANNEL}', 'triggers')`);
      return { inserted: true, trigger: toTrigger(inserted) };
    }
    const existing = await row<Row>(client, 'SELECT * FROM triggers WHERE key = @key', { key: trigger.key });
    if (!existing) throw new Error(`trigger ${trigger.key} conflicted but cannot be read`);
    return { inserted: false, trigger: toTrigger(existing) };
  }

  async claimNext(owner: string, now: number, leaseMs: number): Promise<StoredTrigger | undefined> {
    const claimed = await row<Row>(this.pool, CLAIM_SQL, { owner, process: processOfOwner(owner), now, leaseUntil: now + leaseMs });
    return claimed ? toTrigger(claimed) : undefined;
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
    return transaction(this.pool, async (client) => {
      const ended = await changes(
        client,
        `UPDATE triggers
         SET state = @state, run_id = COALESCE(@runId::text, run_id), last_error = @error, ${RELEASED}, updated_at = @now
         WHERE ${HELD}`,
        { id, owner, now, state: outcome.state, runId: outcome.runId ?? null, error: outcome.error ?? null },
      );
      if (ended === 0) return new Rollback(false);
      if (effects.run) await this.related.runs.insertWithin(client, effects.run, now);
      if (effects.link) await this.related.anchors.linkWithin(client, effects.link.anchor, effects.link.runId, now);
      if (effects.retrack !== undefined) await this.related.runs.retrackWithin(client, effects.retrack, now);
      if (effects.owed) await this.related.outbox.addWithin(client, effects.owed, now);
      return true;
    });
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
