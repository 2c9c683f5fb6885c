import pg from 'pg';
import { checkDatabaseUrl, describeTarget } from '../../config/database-url.js';
import { StartupError } from '../../core/startup-error.js';
import type { ChangeOrigin, Store, StoreChange } from '../../core/ports/store.js';
import { PostgresAnchorRepository } from './anchor-repository.js';
import { PostgresApprovalRepository } from './approval-repository.js';
import { PostgresAuditRepository } from './audit-repository.js';
import { ChangeListener } from './change-listener.js';
import { PostgresConsoleSessionRepository } from './console-session-repository.js';
import { PostgresEventKeyRepository } from './event-key-repository.js';
import { PostgresLeaseRepository } from './lease-repository.js';
import type { GroupCommit } from '../group-commit.js';
import { SchemaTooNewError } from '../migrate.js';
import { migratePostgres } from './migrate.js';
import { PostgresOperatorRepository } from './operator-repository.js';
import { PostgresPersonKeyRepository } from './person-key-repository.js';
import { PostgresPersonLinkRepository } from './person-link-repository.js';
import { PostgresOutboxRepository } from './outbox-repository.js';
import { TYPES } from './pg-sql.js';
import { PostgresProcessRepository } from './process-repository.js';
import { PostgresScheduleFireRepository } from './schedule-fire-repository.js';
import { PostgresSettingRepository } from './setting-repository.js';
import { PostgresTrackedRunRepository } from './tracked-run-repository.js';
import { PostgresTriggerRepository } from './trigger-repository.js';
import { PostgresUsageRepository } from './usage-repository.js';

export interface PostgresStoreOptions {
  /** `postgres://user:password@host:5432/database?sslmode=…`; TLS follows the URL (node-postgres reads `sslmode`). */
  url: string;
  /** Connections in the pool. Default 10. */
  poolSize?: number;
  /** How long opening a connection may take before it fails (ms). Default 10,000. */
  connectTimeoutMs?: number;
  /** Clock for `schema_migrations.applied_at` only; the repositories take `now` from their callers. */
  now?: () => number;
  /** Told about connection errors that are survived (an idle pooled connection or the listener dropped). */
  onProblem?: (error: unknown) => void;
  /** When a batch of enqueued triggers is sent (group-commit.ts); default: the next turn. */
  groupCommit?: GroupCommit;
}

/** The `Store` on a node-postgres pool: several processes (replicas) may share the database. */
export class PostgresStore implements Store {
  readonly triggers: PostgresTriggerRepository;
  readonly trackedRuns: PostgresTrackedRunRepository;
  readonly anchors: PostgresAnchorRepository;
  readonly eventKeys: PostgresEventKeyRepository;
  readonly outbox: PostgresOutboxRepository;
  readonly scheduleFires: PostgresScheduleFireRepository;
  readonly leases: PostgresLeaseRepository;
  readonly processes: PostgresProcessRepository;
  readonly settings: PostgresSettingRepository;
  readonly operator: PostgresOperatorRepository;
  readonly personKeys: PostgresPersonKeyRepository;
  readonly personLinks: PostgresPersonLinkRepository;
  readonly consoleSessions: PostgresConsoleSessionRepository;
  readonly usage: PostgresUsageRepository;
  readonly audit: PostgresAuditRepository;
  readonly approvals: PostgresApprovalRepository;
  private closed = false;

  /** Takes a pool on a migrated database; use `openPostgresStore`. */
  constructor(
    readonly pool: pg.Pool,
    private readonly changes: ChangeListener,
    groupCommit?: GroupCommit,
  ) {
    // What this store writes is signed while its process listens, and told to it at once (change-listener.ts).
    this.outbox = new PostgresOutboxRepository(pool, changes);
    this.trackedRuns = new PostgresTrackedRunRepository(pool, this.outbox, changes);
    this.anchors = new PostgresAnchorRepository(pool);
    this.eventKeys = new PostgresEventKeyRepository(pool);
    this.triggers = new PostgresTriggerRepository(
      pool,
      { outbox: this.outbox, runs: this.trackedRuns, anchors: this.anchors, eventKeys: this.eventKeys },
      changes,
      groupCommit,
    );
    this.scheduleFires = new PostgresScheduleFireRepository(pool);
    this.leases = new PostgresLeaseRepository(pool);
    this.processes = new PostgresProcessRepository(pool);
    this.settings = new PostgresSettingRepository(pool);
    this.operator = new PostgresOperatorRepository(pool);
    this.personKeys = new PostgresPersonKeyRepository(pool);
    this.personLinks = new PostgresPersonLinkRepository(pool);
    this.consoleSessions = new PostgresConsoleSessionRepository(pool);
    this.usage = new PostgresUsageRepository(pool);
    this.audit = new PostgresAuditRepository(pool);
    this.approvals = new PostgresApprovalRepository(pool);
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  onChange(listener: (change: StoreChange, origin: ChangeOrigin) => void): () => void {
    return this.changes.subscribe(listener);
  }

  /** Resolves once change notifications are being received (after a first `onChange`). */
  async listening(): Promise<void> {
    await this.changes.ready();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.changes.close();
    await this.pool.end();
  }
}

/**
 * Opens a pool on the database, checks that it answers and applies pending migrations (under an
 * advisory lock: replicas starting together migrate once). A database that cannot be reached or
 * refuses us is a `StartupError` naming host, port and database — never the password.
 */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  const checked = checkDatabaseUrl(options.url);
  if (!checked.ok) throw new StartupError(`DATABASE_URL ${checked.message}`);
  const where = describeTarget(checked.target);
  const onProblem = options.onProblem ?? (() => {});
  const config: pg.PoolConfig = {
    connectionString: options.url,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    application_name: 'agent-bridge',
  };
  const pool = new pg.Pool({ ...config, max: options.poolSize ?? 10, types: TYPES });
  // An idle connection that drops (a server restart) must not crash the process; the pool replaces it.
  pool.on('error', onProblem);
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    await pool.end().catch(() => {});
    throw new StartupError(
      `Cannot open the PostgreSQL database ${where}: ${connectionProblem(error, checked.password)}. ` +
        'Check DATABASE_URL (host, port, database, user and password) and that the server accepts connections from here.',
    );
  }
  try {
    await migratePostgres(pool, options.now ?? Date.now);
  } catch (error) {
    await pool.end().catch(() => {});
    if (error instanceof SchemaTooNewError) throw error;
    // Most often the user may not create tables: say so with the database's name, not a stack trace.
    throw new StartupError(
      `Cannot set up the tables of the PostgreSQL database ${where}: ${connectionProblem(error, checked.password)}. ` +
        'The user in DATABASE_URL needs to create tables in its public schema (e.g. make it the database owner).',
    );
  }
  return new PostgresStore(pool, new ChangeListener(config, onProblem), options.groupCommit);
}

/** Why a connection failed, in words that never contain the password. */
function connectionProblem(error: unknown, password: string | undefined): string {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  const reason = typeof code === 'string' && /^[A-Z]+$/.test(code) ? `${code} (${message})` : message;
  return password ? reason.replaceAll(password, '****') : reason;
}
