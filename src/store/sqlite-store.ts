import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Clock } from '../core/ports/clock.js';
import type { Store } from '../core/ports/store.js';
import { SqliteAnchorRepository } from './anchor-repository.js';
import { SqliteApprovalRepository } from './approval-repository.js';
import { SqliteAuditRepository } from './audit-repository.js';
import { SqliteConsoleSessionRepository } from './console-session-repository.js';
import { SqliteEventKeyRepository } from './event-key-repository.js';
import { SqliteLeaseRepository } from './lease-repository.js';
import { migrate } from './migrate.js';
import { SqliteOperatorRepository } from './operator-repository.js';
import { SqliteOutboxRepository } from './outbox-repository.js';
import { SqlitePersonKeyRepository } from './person-key-repository.js';
import { SqlitePersonLinkRepository } from './person-link-repository.js';
import { SqliteProcessRepository } from './process-repository.js';
import { SqliteScheduleFireRepository } from './schedule-fire-repository.js';
import { SqliteSettingRepository } from './setting-repository.js';
import { SqliteTrackedRunRepository } from './tracked-run-repository.js';
import { SqliteUsageRepository } from './usage-repository.js';
import { SqliteTriggerRepository } from './trigger-repository.js';
import type { GroupCommit } from './group-commit.js';
import { startWalCheckpointer, type WalCheckpointer } from './wal-checkpointer.js';

export interface SqliteStoreOptions {
  /** Database file (its directory is created), or `:memory:`. */
  path: string;
  /** How long a statement waits for another process's write lock before failing (ms). Default 5000. */
  busyTimeoutMs?: number;
  /** Clock for `schema_migrations.applied_at` only; the repositories take `now` from their callers. */
  now?: () => number;
  /**
   * A long-running process (the service): checkpoint the WAL in a worker thread on this clock's
   * timer instead of inside the commits that fill it (`wal-checkpointer.ts`). File databases only.
   */
  checkpoints?: { clock: Clock; everyMs?: number; onProblem?: (error: Error) => void };
  /** When a batch of enqueued triggers is committed (`GroupCommit`); default: the next turn of the event loop. */
  groupCommit?: GroupCommit;
}

/** The `Store` on one better-sqlite3 connection. Use one per process. */
export class SqliteStore implements Store {
  readonly triggers: SqliteTriggerRepository;
  readonly trackedRuns: SqliteTrackedRunRepository;
  readonly anchors: SqliteAnchorRepository;
  readonly eventKeys: SqliteEventKeyRepository;
  readonly outbox: SqliteOutboxRepository;
  readonly scheduleFires: SqliteScheduleFireRepository;
  readonly leases: SqliteLeaseRepository;
  readonly processes: SqliteProcessRepository;
  readonly settings: SqliteSettingRepository;
  readonly operator: SqliteOperatorRepository;
  readonly personKeys: SqlitePersonKeyRepository;
  readonly personLinks: SqlitePersonLinkRepository;
  readonly consoleSessions: SqliteConsoleSessionRepository;
  readonly usage: SqliteUsageRepository;
  readonly audit: SqliteAuditRepository;
  readonly approvals: SqliteApprovalRepository;
  private readonly pingStatement;

  /** Takes an open, migrated connection; use `openSqliteStore`. */
  constructor(
    readonly db: Database.Database,
    /** The WAL's checkpoints in a worker thread, when the store was opened with `checkpoints`. */
    readonly checkpointer?: WalCheckpointer,
    groupCommit?: GroupCommit,
  ) {
    this.outbox = new SqliteOutboxRepository(db);
    this.trackedRuns = new SqliteTrackedRunRepository(db, this.outbox);
    this.anchors = new SqliteAnchorRepository(db);
    this.eventKeys = new SqliteEventKeyRepository(db);
    this.audit = new SqliteAuditRepository(db);
    this.triggers = new SqliteTriggerRepository(
      db,
      { outbox: this.outbox, runs: this.trackedRuns, anchors: this.anchors, eventKeys: this.eventKeys, audit: this.audit },
      groupCommit,
    );
    this.scheduleFires = new SqliteScheduleFireRepository(db);
    this.leases = new SqliteLeaseRepository(db);
    this.processes = new SqliteProcessRepository(db);
    this.settings = new SqliteSettingRepository(db);
    this.operator = new SqliteOperatorRepository(db);
    this.personKeys = new SqlitePersonKeyRepository(db);
    this.personLinks = new SqlitePersonLinkRepository(db);
    this.consoleSessions = new SqliteConsoleSessionRepository(db);
    this.usage = new SqliteUsageRepository(db);
    this.approvals = new SqliteApprovalRepository(db);
    this.pingStatement = db.prepare('SELECT 1');
  }

  async ping(): Promise<void> {
    this.pingStatement.get();
  }

  async close(): Promise<void> {
    await this.checkpointer?.stop();
    if (this.db.open) this.db.close();
  }
}

/**
 * Opens (creating when absent) the SQLite database, sets it up for several processes — WAL, a busy
 * timeout, `synchronous=NORMAL`, foreign keys on — and applies pending migrations.
 */
export function openSqliteStore(options: SqliteStoreOptions): SqliteStore {
  const inMemory = options.path === ':memory:' || options.path === '';
  if (!inMemory) mkdirSync(dirname(options.path), { recursive: true });
  // The busy timeout is given to the constructor so that it already applies to the pragmas below.
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  const db = new Database(options.path, { timeout: busyTimeoutMs });
  try {
    if (!inMemory) switchToWal(db, busyTimeoutMs);
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    migrate(db, options.now ?? Date.now);
    const checkpointer = inMemory || !options.checkpoints ? undefined : checkpointInWorker(db, options.path, busyTimeoutMs, options.checkpoints);
    return new SqliteStore(db, checkpointer, options.groupCommit);
  } catch (error) {
    db.close();
    throw error;
  }
}

/** Turns this connection's automatic checkpoints off and hands them to a worker; back on if the worker fails. */
function checkpointInWorker(
  db: Database.Database,
  path: string,
  busyTimeoutMs: number,
  options: NonNullable<SqliteStoreOptions['checkpoints']>,
): WalCheckpointer {
  db.pragma('wal_autocheckpoint = 0');
  return startWalCheckpointer({
    path,
    clock: options.clock,
    busyTimeoutMs,
    ...(options.everyMs !== undefined && { everyMs: options.everyMs }),
    onProblem: (error) => {
      if (db.open) db.pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_AUTOCHECKPOINT_PAGES}`);
      options.onProblem?.(error);
    },
  });
}

/** SQLite's own default: a commit that takes the WAL past this many pages checkpoints it. */
const SQLITE_DEFAULT_AUTOCHECKPOINT_PAGES = 1000;

/**
 * Puts a file database in WAL mode. On a new file that another process is setting up at the same
 * moment (replicas starting together), SQLite answers "busy" at once instead of waiting out the busy
 * timeout, so we wait and ask again ourselves, within the same timeout.
 */
function switchToWal(db: Database.Database, busyTimeoutMs: number): void {
  const deadline = Date.now() + busyTimeoutMs;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      if (db.pragma('journal_mode = WAL', { simple: true }) === 'wal') return;
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'SQLITE_BUSY' || Date.now() > deadline) throw error;
    }
    if (Date.now() > deadline) throw new Error(`could not switch ${db.name} to WAL mode within ${busyTimeoutMs} ms`);
    // A synchronous pause: opening the store is synchronous, and this happens only at start.
    Atomics.wait(pause, 0, 0, 5);
  }
}
