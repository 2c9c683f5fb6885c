import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { aTrigger, anOutboxRow, tempDir } from '../../test/store/helpers.js';
import { openSqliteStore, type SqliteStore } from './sqlite-store.js';

/**
 * A claim that finds nothing takes no write lock: every stored trigger wakes a
 * chain of workers, most of whose claims find nothing, and each one used to be a write transaction.
 * Shown with another connection holding the write lock: an empty claim answers at once, a claim
 * that has something to take still waits for the lock (and fails past the busy timeout).
 */
describe('claims on SQLite', () => {
  const cleanups: Array<() => void> = [];
  afterEach(() => {
    while (cleanups.length > 0) cleanups.pop()?.();
  });

  function withWriterElsewhere(): { store: SqliteStore; writer: Database.Database } {
    const { dir, remove } = tempDir();
    const path = join(dir, 'claims.db');
    const store = openSqliteStore({ path, busyTimeoutMs: 50 });
    const writer = new Database(path, { timeout: 50 });
    cleanups.push(
      remove,
      () => void store.close(),
      () => writer.close(),
    );
    return { store, writer };
  }

  it('an empty inbox or outbox is claimed without the write lock', async () => {
    const { store, writer } = withWriterElsewhere();
    writer.exec('BEGIN IMMEDIATE');
    await expect(store.triggers.claimNext('worker-1', 1_000, 30_000)).resolves.toBeUndefined();
    await expect(store.outbox.claimNext('worker-1', 1_000, 30_000)).resolves.toBeUndefined();
    writer.exec('ROLLBACK');
  });

  it('a claim with something to take still takes the lock, and takes the row once it has it', async () => {
    const { store, writer } = withWriterElsewhere();
    await store.triggers.enqueue({ trigger: aTrigger(), owed: [anOutboxRow('received')], now: 500 });
    writer.exec('BEGIN IMMEDIATE');
    await expect(store.triggers.claimNext('worker-1', 1_000, 30_000)).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
    await expect(store.outbox.claimNext('worker-1', 1_000, 30_000)).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
    writer.exec('ROLLBACK');
    expect((await store.triggers.claimNext('worker-1', 1_000, 30_000))?.key).toBe('Ev001');
    expect((await store.outbox.claimNext('worker-1', 1_000, 30_000))?.key).toBe('received');
  });
});
